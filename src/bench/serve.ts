import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { moduleWorker, siblingModule } from '../runtime/ts-worker.ts';
import type { FillReply } from './serve-fill.ts';
import { latencySummary, SyntheticText } from './synthetic.ts';

export interface ServeBenchOptions {
  n: number;
  /** Seconds per phase (search, then writes). */
  seconds: number;
  /** Concurrent clients per phase. */
  concurrency: number;
  /** An empty store to fill and serve (e.g. a postgres:// URL with a fresh schema); a temporary SQLite file when absent. */
  db?: string;
  /** Passed to the server as --search-threads; the server's default when absent. */
  searchThreads?: number;
  /** Leave the built-in model untrained (the state before any consolidation), to compare with earlier figures. */
  untrained?: boolean;
  onProgress?: (line: string) => void;
}

export interface PhaseResult {
  requests: number;
  perSecond: number;
  errors: number;
  /** Up to five distinct error kinds (HTTP status or exception message), so a failure is explainable. */
  errorKinds: string[];
  latencyMs: { p50: number; p95: number; p99: number; mean: number };
}

export interface ServeBenchResult {
  memories: number;
  seconds: number;
  concurrency: number;
  /** GET /v1/memories/:id of one memory: authentication, one indexed row and the JSON round trip, the floor under every route on this machine. */
  get: PhaseResult;
  search: PhaseResult;
  writes: PhaseResult;
  /** Searches and writes at the same time, half the clients each (an agent fleet noting and recalling). */
  mixed: { search: PhaseResult; writes: PhaseResult };
  serverPeakRssMiB: number | null;
  /** 1-minute load average when the load started: other processes on the machine skew every figure. */
  loadAverage: number;
  /** Whether the store's built-in model was trained before the load (as consolidation does on a served store). */
  trainedModel: boolean;
}

const HOST = '127.0.0.1'; // loopback only, never another interface

/**
 * Load test of `mnemos serve`: fills a fresh store with n synthetic memories,
 * starts the server as its own process (as in production), then runs
 * `concurrency` keep-alive clients for a bounded time against GET
 * /v1/memories/:id (the floor), POST /v1/search, POST /v1/memories, and
 * searches and writes together, counting every non-2xx reply as an error.
 */
export async function benchServe(opts: ServeBenchOptions): Promise<ServeBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'mnemos-bench-serve-'));
  const db = opts.db ?? join(dir, 'bench.db');
  const say = opts.onProgress ?? (() => {});
  let child: ChildProcess | undefined;
  try {
    const { token, someId } = await fill(db, opts.n, !opts.untrained, say);
    const gen = new SyntheticText(11);
    const bin = fileURLToPath(new URL('../../bin/mnemos.js', import.meta.url));
    const threads = opts.searchThreads === undefined ? [] : ['--search-threads', String(opts.searchThreads)];
    child = spawn(process.execPath, [bin, 'serve', '--host', HOST, '--port', '0', '--db', db, ...threads], { stdio: ['ignore', 'ignore', 'pipe'] });
    const port = await serverPort(child);
    say(`server on ${HOST}:${port}`);
    const agent = new Agent({ keepAlive: true, maxSockets: opts.concurrency });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const post = (path: string, body: string) => send(agent, port, path, headers, body);
    const search = () => post('/v1/search', JSON.stringify({ query: gen.query(2 + Math.floor(Math.random() * 3)), maxResults: 10 }));
    const write = () => post('/v1/memories', JSON.stringify({ text: gen.sentence(), type: 'fact' }));
    // The server's search threads load the keyword index copy and the vectors after it starts; time the steady state.
    const t = performance.now();
    await untilWarm(agent, port, headers.authorization);
    say(`search caches loaded (${((performance.now() - t) / 1000).toFixed(1)} s after the server started)`);
    // Warm-up: JIT, SQLite page cache.
    await phase(2, opts.concurrency, () => post('/v1/search', JSON.stringify({ query: gen.query(), maxResults: 10 })));
    const loadAverage = Math.round(loadavg()[0]! * 100) / 100;
    const get = await phase(opts.seconds, opts.concurrency, () => send(agent, port, `/v1/memories/${someId}`, headers, null));
    say(`get one memory: ${get.perSecond}/s, p99 ${get.latencyMs.p99} ms, ${get.errors} errors`);
    const searched = await phase(opts.seconds, opts.concurrency, search);
    say(`search: ${searched.perSecond}/s, p99 ${searched.latencyMs.p99} ms, ${searched.errors} errors`);
    const writes = await phase(opts.seconds, opts.concurrency, write);
    say(`writes: ${writes.perSecond}/s, p99 ${writes.latencyMs.p99} ms, ${writes.errors} errors`);
    const half = Math.max(1, Math.floor(opts.concurrency / 2));
    const [mixedSearch, mixedWrites] = await Promise.all([phase(opts.seconds, half, search), phase(opts.seconds, Math.max(1, opts.concurrency - half), write)]);
    say(`mixed: search ${mixedSearch.perSecond}/s (p99 ${mixedSearch.latencyMs.p99} ms), writes ${mixedWrites.perSecond}/s (p99 ${mixedWrites.latencyMs.p99} ms)`);
    agent.destroy();
    const rss = await serverRss(child.pid);
    return {
      memories: opts.n,
      seconds: opts.seconds,
      concurrency: opts.concurrency,
      get,
      search: searched,
      writes,
      mixed: { search: mixedSearch, writes: mixedWrites },
      serverPeakRssMiB: rss,
      loadAverage,
      trainedModel: !opts.untrained,
    };
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

async function phase(seconds: number, concurrency: number, once: () => Promise<number>): Promise<PhaseResult> {
  const samples: number[] = [];
  let errors = 0;
  const kinds = new Set<string>();
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const s = performance.now();
      try {
        const status = await once();
        if (status < 200 || status >= 300) {
          errors++;
          if (kinds.size < 5) kinds.add(`HTTP ${status}`);
        }
      } catch (err) {
        errors++;
        if (kinds.size < 5) kinds.add((err as Error).message);
      }
      samples.push(performance.now() - s);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - t0) / 1000;
  return { requests: samples.length, perSecond: Math.round(samples.length / elapsed), errors, errorKinds: [...kinds], latencyMs: latencySummary(samples) };
}

/** A POST with `body`, or a GET when it is null; resolves to the status code once the reply is read. */
function send(agent: Agent, port: number, path: string, headers: Record<string, string>, body: string | null): Promise<number> {
  return new Promise((resolve, reject) => {
    const h = body === null ? { authorization: headers.authorization! } : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = request({ host: HOST, port, path, method: body === null ? 'GET' : 'POST', agent, headers: h }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/** Fills the store on a worker thread, whose heap (100k memories' worth of garbage) goes with it. */
function fill(db: string, n: number, train: boolean, say: (line: string) => void): Promise<{ token: string; someId: string }> {
  const worker = moduleWorker(siblingModule('serve-fill', import.meta.url), { db, n, train });
  return new Promise((resolve, reject) => {
    worker.on('message', (m: FillReply) => {
      if (m.type === 'progress') {
        if (m.done % 20_000 === 0 || m.done === n) say(`filled ${m.done}/${n}`);
      } else if (m.type === 'training') {
        say('training the built-in model and re-embedding (as consolidation does on a served store)');
      } else if (m.type === 'done') resolve({ token: m.token, someId: m.someId });
      else reject(new Error(`filling the store failed: ${m.message}`));
    });
    worker.on('error', reject);
    worker.on('exit', (code) => reject(new Error(`the fill thread exited (${code}) before finishing`)));
  });
}

/** Polls self_state until the search caches part is no longer loading (at most five minutes). */
async function untilWarm(agent: Agent, port: number, authorization: string): Promise<void> {
  const deadline = performance.now() + 300_000;
  while (performance.now() < deadline) {
    const state = await new Promise<string | undefined>((resolve, reject) => {
      const req = request({ host: HOST, port, path: '/v1/self', method: 'GET', agent, headers: { authorization } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => {
          try {
            const parts = (JSON.parse(body) as { parts?: { part: string; state: string }[] }).parts ?? [];
            resolve(parts.find((x) => x.part === 'search_caches')?.state);
          } catch {
            resolve(undefined);
          }
        });
      });
      req.on('error', reject);
      req.end();
    });
    if (state !== 'unavailable') return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the server did not finish loading its search caches within five minutes');
}

function serverPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 60_000);
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /mnemos serve: http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
}

/** Peak RSS of the server process from /proc (Linux); null elsewhere. */
async function serverRss(pid: number | undefined): Promise<number | null> {
  if (!pid) return null;
  try {
    const { readFileSync } = await import('node:fs');
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}
