/**
 * Waiting for a spawned server's start line, failing fast when it will never
 * come. A server that exits first (a bad option, a store it cannot open), a
 * command that cannot be spawned, and one that prints nothing within the
 * bound all reject with what the child wrote on stderr, and the child is
 * stopped: a test that timed out but left its server running kept its file's
 * process alive, and the suite waited on it forever.
 */
import type { ChildProcess } from 'node:child_process';

/** Long enough for a cold start on a loaded two-core machine (a PostgreSQL store migrates first). */
export const START_BOUND_MS = 60_000;

export interface StartWait {
  /** Where the start line is printed: `mnemos serve` logs it on stderr, `serve --json` prints it on stdout. */
  stream?: 'stderr' | 'stdout';
  /** Give up after this long; default START_BOUND_MS. */
  timeoutMs?: number;
  /** What is started, for the error message. */
  what?: string;
}

/**
 * Resolves with the first match of `line` in the child's output (the whole
 * output so far is matched, so a line split across chunks still counts).
 * Rejects when the child exits or cannot be spawned before printing it, or
 * after `timeoutMs`, killing the child then; every rejection carries its stderr.
 */
export function waitForStart(child: ChildProcess, line: RegExp, opts: StartWait = {}): Promise<RegExpExecArray> {
  const { stream = 'stderr', timeoutMs = START_BOUND_MS, what = 'the server' } = opts;
  const watched = stream === 'stderr' ? child.stderr : child.stdout;
  if (!watched || !child.stderr) return Promise.reject(new Error(`waitForStart needs ${what}'s ${stream} and stderr piped (stdio: 'pipe')`));
  let out = '';
  let err = '';
  return new Promise<RegExpExecArray>((resolve, reject) => {
    const onOut = (d: Buffer | string) => {
      if (stream === 'stdout') out += d;
      else err += d;
      const m = line.exec(stream === 'stdout' ? out : err);
      if (m) settle(() => resolve(m));
    };
    const onErr = (d: Buffer | string) => void (err += d);
    // 'close' comes after the output is drained, so the message has all of stderr; 'exit' alone could cut it.
    const onClose = (code: number | null, signal: NodeJS.Signals | null) =>
      settle(() => reject(new Error(`${what} exited (${signal ?? `code ${code}`}) before its start line ${line}; stderr: ${err || '(empty)'}`)));
    const onError = (e: Error) => settle(() => reject(new Error(`${what} could not be started: ${e.message}; stderr: ${err || '(empty)'}`)));
    const timer = setTimeout(() => {
      settle(() => reject(new Error(`${what} printed no start line ${line} within ${timeoutMs} ms, and was stopped; stderr: ${err || '(empty)'}`)));
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }, timeoutMs);
    function settle(done: () => void): void {
      clearTimeout(timer);
      watched!.off('data', onOut);
      if (stream === 'stdout') child.stderr!.off('data', onErr);
      child.off('close', onClose);
      child.off('error', onError);
      done();
    }
    watched.on('data', onOut);
    if (stream === 'stdout') child.stderr!.on('data', onErr);
    child.on('close', onClose);
    child.on('error', onError);
  });
}
