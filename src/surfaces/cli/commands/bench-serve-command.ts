import { BENCH_FILE, benchBackend, machineNote, writeBenchSection } from '../../../bench/report.ts';
import { benchServe, type ServeBenchResult } from '../../../bench/serve.ts';
import type { Command } from '../command.ts';
import { num } from './options.ts';
import { defaultSearchThreads } from '../../library/search-threads.ts';


export const benchServeCmd: Command = {
  name: 'serve',
  usage: 'serve [--n 100000] [--seconds 10] [--concurrency 16] [--search-threads n] [--untrained] [--db postgres://...] [--no-write]',
  summary: 'requests/s and p50/p95/p99 of mnemos serve on loopback: one-memory reads (the floor), searches, writes, and searches with writes',
  options: { n: { type: 'string' }, seconds: { type: 'string' }, concurrency: { type: 'string' }, 'search-threads': { type: 'string' }, untrained: { type: 'boolean' }, 'no-write': { type: 'boolean' } },
  async run(ctx) {
    const n = num(ctx, 'n') ?? 100_000;
    const seconds = num(ctx, 'seconds') ?? 10;
    const concurrency = num(ctx, 'concurrency') ?? 16;
    const db = ctx.values.db ? ctx.db : undefined;
    const b = benchBackend(db);
    const searchThreads = num(ctx, 'search-threads');
    const untrained = ctx.values.untrained === true;
    const r = await benchServe({ n, seconds, concurrency, untrained, ...(db ? { db } : {}), ...(searchThreads !== undefined ? { searchThreads } : {}), ...(ctx.json ? {} : { onProgress: (l: string) => ctx.stderr(`${l}\n`) }) });
    const ok = r.search.perSecond >= 1500 && r.search.latencyMs.p99 <= 50 && r.get.errors === 0 && r.search.errors === 0 && r.writes.errors === 0 && r.mixed.search.errors === 0 && r.mixed.writes.errors === 0;
    if (!ctx.values['no-write']) {
      const row = (what: string, p: ServeBenchResult['search'], target: string) =>
        `| ${what} | ${p.perSecond.toLocaleString('en')}/s | ${p.latencyMs.p50} / ${p.latencyMs.p95} / ${p.latencyMs.p99} ms | ${p.errors} of ${p.requests.toLocaleString('en')} | ${target} |`;
      writeBenchSection(
        BENCH_FILE,
        // The untrained run is a comparison: it gets a section of its own rather than replacing the main figures.
        // A run of another size than the targets' 100,000 memories sits beside those figures, not over them.
        `serve${n === 100_000 ? '' : `-${n}`}${b.suffix}${untrained ? '-untrained' : ''}`,
        `HTTP server (mnemos serve, ${b.label}${untrained ? ', untrained built-in model' : ''})`,
        [
          `Command: \`mnemos bench serve --n ${n} --seconds ${seconds} --concurrency ${concurrency}${searchThreads !== undefined ? ` --search-threads ${searchThreads}` : ''}${untrained ? ' --untrained' : ''}${b.suffix ? ' --db postgres://...' : ''}\` on ${machineNote()}.`,
          `${n.toLocaleString('en')} memories; the server runs as its own process (search threads: ${searchThreads ?? `the default, ${defaultSearchThreads()} here`}); ${concurrency} keep-alive clients on 127.0.0.1 for ${seconds} s per phase (client and server share the machine). ${untrained ? 'The built-in model was left untrained (vectors carry word pieces only), as before any consolidation.' : 'The built-in model was trained from the store and every memory re-embedded before the load, as consolidation does on a served store.'}`,
          '',
          '| phase | requests/s | p50 / p95 / p99 | errors | target |',
          '|---|---|---|---|---|',
          row('GET /v1/memories/:id (the floor: auth, one row, JSON)', r.get, ''),
          row('POST /v1/search (10 results)', r.search, '>= 1,500/s, p99 <= 50 ms, 0 errors'),
          row('POST /v1/memories (one memory)', r.writes, '0 errors'),
          row(`mixed: POST /v1/search (${Math.floor(concurrency / 2)} clients)`, r.mixed.search, '0 errors'),
          row(`mixed: POST /v1/memories at the same time (${concurrency - Math.floor(concurrency / 2)} clients)`, r.mixed.writes, '0 errors'),
          '',
          `Server peak RSS: ${r.serverPeakRssMiB ?? '?'} MiB. 1-minute load average when the load started: ${r.loadAverage} (other processes on the machine count too). Targets ${ok ? 'met' : 'NOT met'}.`,
        ].join('\n'),
      );
    }
    return { ...r, targetsMet: ok };
  },
  human: (r: ServeBenchResult & { targetsMet: boolean }) =>
    [
      `get one memory: ${r.get.perSecond}/s  p99 ${r.get.latencyMs.p99} ms  errors ${r.get.errors}/${r.get.requests}`,
      `search: ${r.search.perSecond}/s  p50 ${r.search.latencyMs.p50} ms  p95 ${r.search.latencyMs.p95} ms  p99 ${r.search.latencyMs.p99} ms  errors ${r.search.errors}/${r.search.requests}`,
      `writes: ${r.writes.perSecond}/s  p50 ${r.writes.latencyMs.p50} ms  p95 ${r.writes.latencyMs.p95} ms  p99 ${r.writes.latencyMs.p99} ms  errors ${r.writes.errors}/${r.writes.requests}`,
      `mixed: search ${r.mixed.search.perSecond}/s  p99 ${r.mixed.search.latencyMs.p99} ms  errors ${r.mixed.search.errors}/${r.mixed.search.requests}; writes ${r.mixed.writes.perSecond}/s  p99 ${r.mixed.writes.latencyMs.p99} ms  errors ${r.mixed.writes.errors}/${r.mixed.writes.requests}`,
      `targets ${r.targetsMet ? 'met' : 'NOT met'} (>= 1,500 searches/s, p99 <= 50 ms, zero errors)`,
    ].join('\n'),
};
