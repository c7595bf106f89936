import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/** `host:pid:nonce`; a holder on this host whose pid is gone crashed, so its lease need not be waited out. */
export function newHolder(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

export function holderDead(holder: string): boolean {
  const [host, pid] = holder.split(':');
  if (host !== hostname() || !pid || !/^\d+$/.test(pid)) return false;
  if (Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
