import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
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
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  return isZombie(Number(pid));
}

/**
 * A process killed (`kill -9`) stays in the process table as a zombie until
 * its parent reaps it, and signal 0 still reaches it: a shell that exec'd
 * into another program, or a container init that reaps lazily, left the
 * killed run's lease looking alive, and the next run was told to wait for
 * a process that will never finish. Linux says so in /proc (state Z, or X
 * while it goes); elsewhere there is no such file and the lease's expiry
 * decides, as before.
 */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return false;
  }
  // "pid (comm) state ...": comm may hold spaces and parentheses, so the state follows the last ')'.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}
