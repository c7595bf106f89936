/**
 * Bounded waits on a spawned child that is not a server (an `mnemos mcp`
 * session, a lock holder, a reader): for some output, or for its exit. Like
 * waitForStart (server-start.ts) they fail fast and never leave the child
 * behind: a wait that gives up kills it, since a child still running keeps
 * the test file's process alive and the suite waits on it forever.
 */
import type { ChildProcess } from 'node:child_process';
import { START_BOUND_MS } from './server-start.ts';

export interface ChildWait {
  /** Give up after this long (then the child is killed); default START_BOUND_MS. */
  timeoutMs?: number;
  /** What is waited on, for the error message. */
  what?: string;
  /** The child's stderr so far, kept by the caller (it has listened since the spawn; a listener added here would miss what came first). */
  stderr?: () => string;
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** Kills the child unless it has ended; for `finally` blocks and `after` hooks. */
export function stopChild(child: ChildProcess): void {
  if (running(child)) child.kill('SIGKILL');
}

/**
 * Resolves once `ready()` holds, checked now and after each chunk the child
 * writes on stdout or stderr (the caller's own listeners, added at the spawn,
 * have run by then). Rejects when the child ends or cannot be spawned first,
 * or after the bound, killing the child; every rejection carries its stderr.
 */
export function waitForOutput(child: ChildProcess, ready: () => boolean, expecting: string, opts: ChildWait = {}): Promise<void> {
  const { timeoutMs = START_BOUND_MS, what = 'the child', stderr = () => '' } = opts;
  if (ready()) return Promise.resolve();
  const why = () => `; stderr: ${stderr() || '(empty)'}`;
  return new Promise<void>((resolve, reject) => {
    const onData = () => {
      if (ready()) settle(resolve);
    };
    // 'close' comes after the output is drained, so the last chunk is checked first.
    const onClose = (code: number | null, signal: NodeJS.Signals | null) =>
      settle(() => (ready() ? resolve() : reject(new Error(`${what} ended (${signal ?? `code ${code}`}) before ${expecting}${why()}`))));
    const onError = (e: Error) => settle(() => reject(new Error(`${what} could not be started: ${e.message}${why()}`)));
    const timer = setTimeout(() => {
      settle(() => reject(new Error(`${what} gave no ${expecting} within ${timeoutMs} ms, and was stopped${why()}`)));
      stopChild(child);
    }, timeoutMs);
    function settle(done: () => void): void {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('close', onClose);
      child.off('error', onError);
      done();
    }
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('close', onClose);
    child.on('error', onError);
  });
}

/**
 * Resolves with how the child ended (after its output is drained). Rejects
 * when it cannot be spawned, or when it is still running after the bound,
 * killing it then; the rejection carries its stderr.
 */
export function waitForExit(child: ChildProcess, opts: ChildWait = {}): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const { timeoutMs = START_BOUND_MS, what = 'the child', stderr = () => '' } = opts;
  const why = () => `; stderr: ${stderr() || '(empty)'}`;
  return new Promise((resolve, reject) => {
    // Already ended and drained: 'close' will not come again.
    if (!running(child) && (child.stdout?.readableEnded ?? true) && (child.stderr?.readableEnded ?? true)) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    const onClose = (code: number | null, signal: NodeJS.Signals | null) => settle(() => resolve({ code, signal }));
    const onError = (e: Error) => settle(() => reject(new Error(`${what} could not be started: ${e.message}${why()}`)));
    const timer = setTimeout(() => {
      settle(() => reject(new Error(`${what} did not exit within ${timeoutMs} ms, and was stopped${why()}`)));
      stopChild(child);
    }, timeoutMs);
    function settle(done: () => void): void {
      clearTimeout(timer);
      child.off('close', onClose);
      child.off('error', onError);
      done();
    }
    child.on('close', onClose);
    child.on('error', onError);
  });
}
