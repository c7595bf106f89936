import { benchIngest, type IngestBenchResult } from '../../../bench/ingest.ts';
import { BENCH_FILE, benchBackend, machineNote, writeBenchSection } from '../../../bench/report.ts';
import type { Command, CommandContext } from '../command.ts';
import { benchCycleCmd } from './cycle-commands.ts';
import { benchBeirCmd, benchLatencyCmd, benchLocomoCmd } from './bench-retrieval-commands.ts';
import { benchServeCmd } from './bench-serve-command.ts';
import { benchConsolidateCmd } from './bench-consolidate-command.ts';
import { benchJournalCmd } from './bench-journal-command.ts';
import { benchImportCmd } from './bench-import-command.ts';
import { num, str } from './options.ts';
import { BENCH_HEAD } from './heads.ts';


function progress(ctx: CommandContext, label: string) {
  if (!ctx.isTTY || ctx.json) return undefined;
  return (done: number, total: number) => ctx.stderr(`\r${label} ${done}/${total}${done === total ? '\n' : ''}`);
}

const ingest: Command = {
  name: 'ingest',
  usage: 'ingest [--n 100000] [--batch 1000] [--queries 1000] [--db path] [--no-write]',
  summary: 'ingest rate, keyword search latency, size and RSS on synthetic text',
  options: { n: { type: 'string' }, batch: { type: 'string' }, queries: { type: 'string' }, 'no-write': { type: 'boolean' } },
  async run(ctx) {
    const n = num(ctx, 'n') ?? 100_000;
    const r = await benchIngest({
      n,
      ...(num(ctx, 'batch') ? { batch: num(ctx, 'batch')! } : {}),
      ...(num(ctx, 'queries') ? { queries: num(ctx, 'queries')! } : {}),
      ...(str(ctx, 'db') && ctx.values.db ? { db: ctx.db } : {}),
      ...(progress(ctx, 'ingest') ? { onProgress: progress(ctx, 'ingest')! } : {}),
    });
    if (!ctx.values['no-write']) {
      const b = benchBackend(ctx.values.db ? ctx.db : undefined);
      // The targets differ by backend: PostgreSQL's are its own ingest rate and search within 3x of SQLite's.
      const target = b.suffix ? { ingest: '>= 5,000/s', keyword: 'within 3x of SQLite (see the summary)' } : { ingest: '>= 20,000/s', keyword: 'p95 <= 5 ms' };
      writeBenchSection(
        BENCH_FILE,
        // The targets are for 100,000 memories: a run of another size sits beside those figures, not over them.
        `ingest${n === 100_000 ? '' : `-${n}`}${b.suffix}`,
        `Ingest and keyword search (${b.label})`,
        [
          `Command: \`mnemos bench ingest --n ${n}${num(ctx, 'batch') ? ` --batch ${num(ctx, 'batch')}` : ''}${num(ctx, 'queries') ? ` --queries ${num(ctx, 'queries')}` : ''}${b.suffix ? ' --db postgres://...' : ''}\` on ${machineNote()}.`,
          '',
          '| figure | measured | target |',
          '|---|---|---|',
          `| ingest, batches of ${r.batchSize} | ${r.ingestPerSecond.toLocaleString('en')} memories/s | ${target.ingest} |`,
          `| keyword search p50 / p95 / p99 at ${n.toLocaleString('en')} | ${r.keywordSearchMs.p50} / ${r.keywordSearchMs.p95} / ${r.keywordSearchMs.p99} ms | ${target.keyword} |`,
          `| database size | ${r.dbBytes === null ? '?' : (r.dbBytes / 2 ** 20).toFixed(1) + ' MiB'} | |`,
          `| peak RSS | ${r.peakRssMiB} MiB | |`,
        ].join('\n'),
      );
    }
    return r;
  },
  human: (r: IngestBenchResult) =>
    `ingested ${r.memories} in ${r.ingestSeconds}s (${r.ingestPerSecond}/s); keyword search p50 ${r.keywordSearchMs.p50} ms, p95 ${r.keywordSearchMs.p95} ms, p99 ${r.keywordSearchMs.p99} ms; db ${r.dbBytes} bytes; peak RSS ${r.peakRssMiB} MiB`,
};

export const bench: Command = {
  ...BENCH_HEAD,
  subcommands: [ingest, benchImportCmd, benchServeCmd, benchCycleCmd, benchConsolidateCmd, benchLocomoCmd, benchBeirCmd, benchLatencyCmd, benchJournalCmd],
  async run() {
    return undefined;
  },
};
