import { MnemosError } from '../domain/errors.ts';
import { boundedRun, type BoundedRunResult, type BoundedRunSpec } from './bounded-run.ts';
import type { ParseCheckHook } from './journal.ts';

/**
 * A parse-check hook that hands each canonical cluster to an external MeTTa
 * runtime (PeTTa or any checker the caller names) through boundedRun. The
 * cluster text goes on stdin; the runtime must exit 0 within the timeout,
 * stay under the output ceilings, print strict UTF-8, print `passMarker` if
 * one is configured, and print nothing matching `failPattern`. Anything else
 * rejects the cluster. Opt-in: nothing runs unless a caller builds this hook.
 */

export interface RuntimeCheckConfig {
  argv: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  timeoutMs?: number;
  maxStdoutBytes?: number;
  maxStderrBytes?: number;
  executableSha256?: string;
  /** Stdout must contain this text for the cluster to pass. */
  passMarker?: string;
  /** Stdout or stderr matching this rejects the cluster even on exit 0 (runtimes that report errors as output). */
  failPattern?: RegExp;
  /** Receives every run, passed or not, for audit logs. */
  onRun?: (result: BoundedRunResult, clusterId: string) => void;
}

export function makeRuntimeParseCheck(config: RuntimeCheckConfig): ParseCheckHook {
  return async (canonicalText: string, clusterId: string) => {
    const spec: BoundedRunSpec = {
      argv: config.argv,
      cwd: config.cwd,
      env: config.env,
      stdin: canonicalText,
      timeoutMs: config.timeoutMs ?? 10_000,
      maxStdoutBytes: config.maxStdoutBytes ?? 1024 * 1024,
      maxStderrBytes: config.maxStderrBytes ?? 256 * 1024,
      executableSha256: config.executableSha256,
    };
    const result = await boundedRun(spec);
    config.onRun?.(result, clusterId);
    const rejection = judge(result, config);
    if (rejection !== null) {
      throw new MnemosError('validation_failed', `MeTTa runtime check rejected cluster ${clusterId}: ${rejection}`, {
        clusterId,
        failure: result.ok ? 'rejected_output' : result.failure,
        stdin: result.stdin,
        stdout: result.stdout,
        stderr: result.stderr,
        exitCode: result.exitCode,
      });
    }
  };
}

function judge(result: BoundedRunResult, config: RuntimeCheckConfig): string | null {
  if (!result.ok) return `${result.failure}: ${result.message}`;
  // A copy without g/y flags: a shared global RegExp would carry lastIndex between runs.
  const failPattern = config.failPattern ? new RegExp(config.failPattern.source, config.failPattern.flags.replace(/[gy]/g, '')) : undefined;
  if (failPattern && (failPattern.test(result.stdoutText) || failPattern.test(result.stderrText))) {
    return `the runtime reported an error: ${firstMatchLine(result, failPattern)}`;
  }
  if (config.passMarker !== undefined && !result.stdoutText.includes(config.passMarker)) return `stdout lacks the pass marker ${JSON.stringify(config.passMarker)}`;
  return null;
}

function firstMatchLine(result: { stdoutText: string; stderrText: string }, pattern: RegExp): string {
  const line = [...result.stdoutText.split('\n'), ...result.stderrText.split('\n')].find((l) => pattern.test(l)) ?? '';
  return line.slice(0, 200);
}
