import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { sha256File } from '../runtime/file-sha256.ts';
import { resolveExecutable } from './resolve-executable.ts';

/**
 * Runs one external program under hard bounds and reports exactly what went
 * in and came out. No shell: argv is passed as given. The environment is the
 * one supplied, nothing inherited. The process gets its own process group so
 * a timeout or an exceeded ceiling kills it and everything it started.
 * Output must be strict UTF-8. Every failure is a typed result, never a
 * throw, and a failure is never reported as success (fail closed). The raw
 * capture is evidence of a run, not a validated result.
 */

export interface BoundedRunSpec {
  /** argv[0] is a path or a bare name searched in env.PATH; the rest are arguments. */
  argv: readonly string[];
  /** Absolute, existing working directory. */
  cwd: string;
  /** The child's whole environment. */
  env: Readonly<Record<string, string>>;
  /** The program text or bytes sent on stdin (stdin is closed after it). */
  stdin?: string | Uint8Array;
  timeoutMs: number;
  maxStdoutBytes: number;
  maxStderrBytes: number;
  /** Hex SHA-256 the resolved executable must have. */
  executableSha256?: string;
  /** Budget for argv after resolution (bytes incl. NUL terminators). Default 128 KiB. */
  maxArgvBytes?: number;
  /** Budget for the environment as the OS sees it (`K=V\0`). Default 64 KiB. */
  maxEnvBytes?: number;
  /** Budget for stdin bytes. Default 16 MiB. */
  maxStdinBytes?: number;
}

export interface StreamRecord {
  bytes: number;
  sha256: string;
}

export type BoundedRunFailure =
  | 'invalid_spec'
  | 'not_found'
  | 'executable_mismatch'
  | 'spawn_failed'
  | 'timeout'
  | 'stdout_limit'
  | 'stderr_limit'
  | 'signal'
  | 'exit_nonzero'
  | 'malformed_output';

interface RunCommon {
  /** The resolved absolute path that was (or would have been) launched. */
  executable: { path: string; sha256?: string } | null;
  stdin: StreamRecord;
  stdout: StreamRecord;
  stderr: StreamRecord;
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
}

export interface BoundedRunSuccess extends RunCommon {
  ok: true;
  stdoutText: string;
  stderrText: string;
}

export interface BoundedRunError extends RunCommon {
  ok: false;
  failure: BoundedRunFailure;
  message: string;
}

export type BoundedRunResult = BoundedRunSuccess | BoundedRunError;

/** SHA-256 of zero bytes. */
const EMPTY_SHA = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const empty = (): StreamRecord => ({ bytes: 0, sha256: EMPTY_SHA });

export async function boundedRun(spec: BoundedRunSpec): Promise<BoundedRunResult> {
  const started = performance.now();
  const stdinBytes = typeof spec.stdin === 'string' ? Buffer.from(spec.stdin, 'utf8') : Buffer.from(spec.stdin ?? new Uint8Array());
  const base: RunCommon = { executable: null, stdin: digest(stdinBytes), stdout: empty(), stderr: empty(), exitCode: null, signal: null, durationMs: 0 };
  const fail = (failure: BoundedRunFailure, message: string, extra: Partial<RunCommon> = {}): BoundedRunError => ({
    ...base,
    ...extra,
    durationMs: performance.now() - started,
    ok: false,
    failure,
    message,
  });

  const problem = specProblem(spec, stdinBytes.length);
  if (problem) return fail('invalid_spec', problem);
  const path = resolveExecutable(spec.argv[0]!, { path: spec.env.PATH, cwd: spec.cwd });
  if (path === null) return fail('not_found', `${spec.argv[0]} is not an executable file${spec.argv[0]!.includes('/') ? '' : ' on the given PATH'}`);
  base.executable = { path };
  const argvBytes = [path, ...spec.argv.slice(1)].reduce((n, a) => n + Buffer.byteLength(a) + 1, 0);
  if (argvBytes > (spec.maxArgvBytes ?? 128 * 1024)) return fail('invalid_spec', `argv is ${argvBytes} bytes after resolving the executable, over the budget`);
  if (spec.executableSha256 !== undefined) {
    let actual: string;
    try {
      actual = sha256File(path);
    } catch (err) {
      return fail('executable_mismatch', `cannot read ${path} to check its SHA-256: ${(err as Error).message}`);
    }
    base.executable = { path, sha256: actual };
    if (actual !== spec.executableSha256.toLowerCase()) return fail('executable_mismatch', `${path} has SHA-256 ${actual}, expected ${spec.executableSha256}`);
  }
  return launch(spec, path, stdinBytes, base, started);
}

function launch(spec: BoundedRunSpec, path: string, stdinBytes: Buffer, base: RunCommon, started: number): Promise<BoundedRunResult> {
  return new Promise((resolveRun) => {
    let settled = false;
    let failure: { kind: BoundedRunFailure; message: string } | null = null;
    const out = new Capture(spec.maxStdoutBytes);
    const err = new Capture(spec.maxStderrBytes);
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(path, spec.argv.slice(1), {
        cwd: spec.cwd,
        env: { ...spec.env },
        argv0: spec.argv[0],
        detached: true, // own process group, so killing -pid reaches grandchildren
        shell: false,
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (e) {
      resolveRun({ ...base, durationMs: performance.now() - started, ok: false, failure: 'spawn_failed', message: `could not start ${path}: ${(e as Error).message}` });
      return;
    }
    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // group already gone
      }
    };
    const stop = (kind: BoundedRunFailure, message: string): void => {
      failure ??= { kind, message };
      killGroup();
    };
    const timer = setTimeout(() => stop('timeout', `no result within ${spec.timeoutMs} ms; the process group was killed`), spec.timeoutMs);
    const finish = (result: BoundedRunResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolveRun(result);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      if (!out.add(chunk)) stop('stdout_limit', `stdout passed ${spec.maxStdoutBytes} bytes; the process group was killed`);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (!err.add(chunk)) stop('stderr_limit', `stderr passed ${spec.maxStderrBytes} bytes; the process group was killed`);
    });
    child.stdin.on('error', () => {
      // The child closed stdin early (EPIPE); its exit status tells the rest.
    });
    child.on('error', (e) => {
      killGroup();
      finish({ ...base, durationMs: performance.now() - started, ok: false, failure: 'spawn_failed', message: `could not start ${path}: ${e.message}` });
    });
    child.on('close', (code, signal) => {
      killGroup(); // stragglers that closed their pipes but kept running
      const common: RunCommon = { ...base, stdout: out.record(), stderr: err.record(), exitCode: code, signal, durationMs: performance.now() - started };
      if (failure) return finish({ ...common, ok: false, failure: failure.kind, message: failure.message });
      if (signal !== null) return finish({ ...common, ok: false, failure: 'signal', message: `terminated by ${signal}` });
      if (code !== 0) return finish({ ...common, ok: false, failure: 'exit_nonzero', message: `exited with status ${code}` });
      const stdoutText = strictUtf8(out.bytes());
      const stderrText = strictUtf8(err.bytes());
      if (stdoutText === null || stderrText === null) {
        return finish({ ...common, ok: false, failure: 'malformed_output', message: `${stdoutText === null ? 'stdout' : 'stderr'} is not valid UTF-8` });
      }
      finish({ ...common, ok: true, stdoutText, stderrText });
    });
    child.stdin.end(stdinBytes);
  });
}

/** Keeps at most `max` bytes; add() returns false once the ceiling is passed. */
class Capture {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly max: number;
  constructor(max: number) {
    this.max = max;
  }
  add(chunk: Buffer): boolean {
    const room = this.max - this.size;
    if (chunk.length > room) {
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.size = this.max;
      return false;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    return true;
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
  record(): StreamRecord {
    return digest(this.bytes());
  }
}

function digest(bytes: Uint8Array): StreamRecord {
  return { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

function strictUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

function specProblem(spec: BoundedRunSpec, stdinLength: number): string | null {
  if (!Array.isArray(spec.argv) || spec.argv.length === 0 || typeof spec.argv[0] !== 'string' || spec.argv[0] === '') return 'argv must start with the program to run';
  if (spec.argv.some((a) => typeof a !== 'string' || a.includes('\0'))) return 'argv entries must be strings without NUL bytes';
  if (typeof spec.cwd !== 'string' || !isAbsolute(spec.cwd)) return 'cwd must be an absolute path';
  try {
    if (!statSync(spec.cwd).isDirectory()) return `cwd ${spec.cwd} is not a directory`;
  } catch {
    return `cwd ${spec.cwd} does not exist`;
  }
  if (spec.env === null || typeof spec.env !== 'object') return 'env must be given explicitly (use {} for none)';
  let envBytes = 0;
  for (const [k, v] of Object.entries(spec.env)) {
    if (k === '' || k.includes('=') || k.includes('\0') || typeof v !== 'string' || v.includes('\0')) return `env entry ${JSON.stringify(k)} is not a valid NAME=value pair`;
    envBytes += Buffer.byteLength(k) + Buffer.byteLength(v) + 2;
  }
  if (envBytes > (spec.maxEnvBytes ?? 64 * 1024)) return `env is ${envBytes} bytes, over the budget`;
  if (!positiveInt(spec.timeoutMs)) return 'timeoutMs must be a positive integer';
  if (!nonNegativeInt(spec.maxStdoutBytes) || !nonNegativeInt(spec.maxStderrBytes)) return 'stream ceilings must be non-negative integers';
  if (stdinLength > (spec.maxStdinBytes ?? 16 * 1024 * 1024)) return `stdin is ${stdinLength} bytes, over the budget`;
  if (spec.executableSha256 !== undefined && !/^[0-9a-fA-F]{64}$/.test(spec.executableSha256)) return 'executableSha256 must be 64 hex digits';
  return null;
}

function positiveInt(n: unknown): boolean {
  return typeof n === 'number' && Number.isInteger(n) && n > 0;
}
function nonNegativeInt(n: unknown): boolean {
  return typeof n === 'number' && Number.isInteger(n) && n >= 0;
}
