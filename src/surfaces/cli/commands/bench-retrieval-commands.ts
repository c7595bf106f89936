import { writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { loadBeir, runBeir, type BeirReport } from '../../../bench/beir.ts';
import { EngineBenchStores, engineBeirSearch, engineLocomoSearch } from '../../../bench/engine-search.ts';
import { benchLatency, type LatencyBenchResult } from '../../../bench/latency.ts';
import { loadLocomo } from '../../../bench/locomo.ts';
import { DEFAULT_LOCOMO_KS, runLocomo, type LocomoReport } from '../../../bench/locomo-harness.ts';
import { BENCH_FILE, benchBackend, machineNote, writeBenchSection } from '../../../bench/report.ts';
import { MnemosError } from '../../../domain/errors.ts';
import type { SearchMode } from '../../../services/search.ts';
import type { Command, CommandContext } from '../command.ts';
import { num, positional, str } from './options.ts';
import { vectorIndexConfigFromEnv } from '../vector-index-env.ts';

const pct = (x: number) => (x * 100).toFixed(1);

function modeOf(ctx: CommandContext): SearchMode {
  const mode = str(ctx, 'mode') ?? 'hybrid';
  if (mode !== 'keyword' && mode !== 'vector' && mode !== 'hybrid') throw new MnemosError('validation_failed', '--mode must be keyword, vector or hybrid', { field: 'mode' });
  return mode;
}

/** What `bench locomo` writes to BENCHMARKS.md: the section's name, title and body. */
export function locomoSection(r: LocomoReport, o: { mode: SearchMode; graph: boolean; ks: number[]; kGiven: boolean; machine: string }): { name: string; title: string; body: string } {
  const { mode, graph, ks } = o;
  // The default set given explicitly is the default run, not a section of its own.
  const kArg = o.kGiven && ks.join(',') !== DEFAULT_LOCOMO_KS.join(',') ? ` --k ${ks.join(',')}` : '';
  // Published figures exist for k = 5, 10, 25, 50 only; each sits under its own k (they were printed
  // in a fixed order, so under --k 10,50 the paper's R@5 read as its R@10).
  const published = (row: Record<number, number>) => ks.map((k) => (row[k] === undefined ? '-' : row[k]!.toFixed(1))).join(' | ');
  return {
    // Another set of k gets its own section instead of replacing the four-k one.
    name: `locomo-${mode}${graph ? '-graph' : ''}${kArg ? `-k${ks.join('-')}` : ''}`,
    title: `LoCoMo retrieval, ${mode}${graph ? ' with the knowledge graph indexed' : ''} (SQLite engine)`,
    body: [
      `Command: \`mnemos bench locomo ../shared/datasets/locomo/locomo10.json --mode ${mode}${graph ? ' --graph' : ''}${kArg}\` on ${o.machine}. Every turn is ingested through the library${mode === 'keyword' ? '' : "; the built-in embedder is trained on each conversation's own text by `embed --backfill`"}. Unlike the paper's retrievers, the engine is given each turn's session date (as its valid time) and searches with the question's reference time: its time-phrase handling and recency tie-break use them.`,
      '',
      `| | ${ks.map((k) => `R@${k}`).join(' | ')} |`,
      `|---|${ks.map(() => '---').join('|')}|`,
      `| overall (${r.questions} questions) | ${ks.map((k) => pct(r.recall[String(k)] ?? 0)).join(' | ')} |`,
      ...Object.entries(r.byCategory).map(([c, v]) => `| ${c} | ${ks.map((k) => pct(v[String(k)] ?? 0)).join(' | ')} |`),
      `| published: DRAGON over turns (paper) | ${published(LOCOMO_PUBLISHED.dragon)} |`,
      `| published: plain BM25 over turns | ${published(LOCOMO_PUBLISHED.bm25)} |`,
      '',
      `ms per query p50 ${r.msPerQuery.p50}, p95 ${r.msPerQuery.p95}.`,
    ].join('\n'),
  };
}

/** What `bench beir` writes: SciFact's published figures and target belong to SciFact alone; another folder gets its own section. */
export function beirSection(r: BeirReport, o: { dir: string; mode: SearchMode; machine: string }): { name: string; title: string; body: string } {
  // The folder's own name, also for `.` or a path ending in a slash.
  const name = basename(resolve(o.dir));
  const scifact = name.toLowerCase() === 'scifact';
  const row = `| Mnemos (${r.queries} queries) | ${r['ndcg@10'].toFixed(4)} | ${r['recall@100'].toFixed(4)} |`;
  return {
    name: scifact ? `beir-${o.mode}` : `beir-${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${o.mode}`,
    title: `BEIR ${name}, ${o.mode} (SQLite engine)`,
    body: [
      `Command: \`mnemos bench beir ${o.dir} --mode ${o.mode}\` on ${o.machine}.`,
      '',
      ...(scifact
        ? ['| | nDCG@10 | recall@100 | target |', '|---|---|---|---|', `${row} nDCG@10 >= 0.67 (keyword) |`, '| published: Pyserini bm25-flat (SciFact) | 0.6789 | 0.9253 | |']
        : ['| | nDCG@10 | recall@100 |', '|---|---|---|', row]),
    ].join('\n'),
  };
}

/** The paper's retrieval recall over turns (dataset README), by k. */
const LOCOMO_PUBLISHED: Record<'dragon' | 'bm25', Record<number, number>> = {
  dragon: { 5: 56.7, 10: 66.2, 25: 76.7, 50: 82.7 },
  bm25: { 5: 51.7, 10: 59.8, 25: 69.5, 50: 75.4 },
};

export const benchLocomoCmd: Command = {
  name: 'locomo',
  usage: 'locomo <locomo10.json> [--mode keyword|vector|hybrid] [--graph] [--k 5,10,25,50] [--limit-conversations n] [--dump file] [--no-write]',
  summary: "LoCoMo retrieval recall@k with the paper's protocol, through the real engine",
  options: { mode: { type: 'string' }, graph: { type: 'boolean' }, k: { type: 'string' }, 'limit-conversations': { type: 'string' }, dump: { type: 'string' }, 'no-write': { type: 'boolean' } },
  async run(ctx) {
    const path = positional(ctx, 0, 'path to locomo10.json');
    const mode = modeOf(ctx);
    const ks = (str(ctx, 'k') ?? DEFAULT_LOCOMO_KS.join(',')).split(',').map((k) => Number(k.trim()));
    if (ks.some((k) => !Number.isInteger(k) || k < 1 || k > 200)) throw new MnemosError('validation_failed', '--k takes integers from 1 to 200, comma separated', { field: 'k' });
    let conversations = await loadLocomo(path);
    const limit = num(ctx, 'limit-conversations');
    if (limit !== undefined) conversations = conversations.slice(0, limit);
    const stores = new EngineBenchStores({ mode });
    try {
      const graph = !!ctx.values.graph;
      const run = await runLocomo(conversations, engineLocomoSearch(stores, mode, { graph }), ks);
      const dump = str(ctx, 'dump');
      if (dump) writeFileSync(dump, run.results.map((r) => JSON.stringify(r)).join('\n') + '\n');
      if (!ctx.values['no-write'] && limit === undefined) {
        const section = locomoSection(run.report, { mode, graph, ks, kGiven: str(ctx, 'k') !== undefined, machine: machineNote() });
        writeBenchSection(BENCH_FILE, section.name, section.title, section.body);
      }
      return run.report;
    } finally {
      await stores.close();
    }
  },
  human: (r: LocomoReport) =>
    [`${r.questions} questions; recall ${Object.entries(r.recall).map(([k, v]) => `@${k} ${pct(v)}`).join(', ')}`, ...Object.entries(r.byCategory).map(([c, v]) => `  ${c.padEnd(12)} ${Object.entries(v).map(([k, x]) => `@${k} ${pct(x)}`).join(', ')}`), `ms/query p50 ${r.msPerQuery.p50} p95 ${r.msPerQuery.p95}`].join('\n'),
};

export const benchBeirCmd: Command = {
  name: 'beir',
  usage: 'beir <dir> [--mode keyword|vector|hybrid] [--no-write]',
  summary: 'BEIR nDCG@10 and recall@100 (e.g. SciFact), through the real engine',
  options: { mode: { type: 'string' }, 'no-write': { type: 'boolean' } },
  async run(ctx) {
    const dir = positional(ctx, 0, 'BEIR dataset directory');
    const mode = str(ctx, 'mode') ? modeOf(ctx) : 'keyword';
    const data = await loadBeir(dir);
    const stores = new EngineBenchStores({ mode });
    try {
      const r = await runBeir(data, engineBeirSearch(stores, mode));
      if (!ctx.values['no-write']) {
        const section = beirSection(r, { dir, mode, machine: machineNote() });
        writeBenchSection(BENCH_FILE, section.name, section.title, section.body);
      }
      return r;
    } finally {
      await stores.close();
    }
  },
  human: (r: BeirReport) => `${r.queries} queries: nDCG@10 ${r['ndcg@10'].toFixed(4)}, recall@100 ${r['recall@100'].toFixed(4)}`,
};

export const benchLatencyCmd: Command = {
  name: 'latency',
  usage: 'latency [--n 100000] [--queries 500] [--db path|postgres://...] [--vector-index auto|exact|approximate] [--no-write]',
  summary: 'hybrid search latency at scale with the default embedder; ingest rate, RSS, size, which vector index answered',
  options: { n: { type: 'string' }, queries: { type: 'string' }, 'vector-index': { type: 'string' }, 'no-write': { type: 'boolean' } },
  async run(ctx) {
    const n = num(ctx, 'n') ?? 100_000;
    const onProgress = ctx.isTTY && !ctx.json ? (phase: string, done: number, total: number) => ctx.stderr(`\r${phase.padEnd(9)} ${done}/${total}`.padEnd(40)) : undefined;
    // The index choice comes from MNEMOS_VECTOR_INDEX(_THRESHOLD) like every command; --vector-index overrides the mode.
    const fromEnv = ctx.vectorIndex();
    const vectorIndex = str(ctx, 'vector-index') ? vectorIndexConfigFromEnv({ MNEMOS_VECTOR_INDEX: str(ctx, 'vector-index')!, MNEMOS_VECTOR_INDEX_THRESHOLD: String(fromEnv.threshold) }) : fromEnv;
    const r = await benchLatency({ n, vectorIndex, ...(num(ctx, 'queries') ? { queries: num(ctx, 'queries')! } : {}), ...(ctx.values.db ? { db: ctx.db } : {}), ...(onProgress ? { onProgress } : {}) });
    if (!ctx.values['no-write']) {
      const b = benchBackend(ctx.values.db ? ctx.db : undefined);
      // A forced index mode gets its own section, so it sits beside the default run instead of replacing it.
      const mode = vectorIndex.mode === 'auto' ? '' : `-${vectorIndex.mode}`;
      writeBenchSection(
        BENCH_FILE,
        `latency-${n}${b.suffix}${mode}`,
        `Hybrid search latency at ${n.toLocaleString('en')} memories (${b.label}, built-in embedder${mode ? `, ${vectorIndex.mode} vector index` : ''})`,
        [
          `Command: \`mnemos bench latency --n ${n}${num(ctx, 'queries') ? ` --queries ${num(ctx, 'queries')}` : ''}${b.suffix ? ' --db postgres://...' : ''}${mode ? ` --vector-index ${vectorIndex.mode}` : ''}\` on ${machineNote()}.`,
          '',
          '| figure | measured | target |',
          '|---|---|---|',
          `| hybrid search p50 / p95 / p99 | ${r.hybridSearchMs.p50} / ${r.hybridSearchMs.p95} / ${r.hybridSearchMs.p99} ms | p95 <= ${n >= 1_000_000 ? 60 : 15} ms |`,
          `| hybrid search right after a write (p50 / p95 / p99; the write not timed) | ${r.afterWriteSearchMs.p50} / ${r.afterWriteSearchMs.p95} / ${r.afterWriteSearchMs.p99} ms | |`,
          `| vector index (mode ${r.vectorIndex.config.mode}, threshold ${r.vectorIndex.config.threshold.toLocaleString('en')}) | ${indexSummary(r)} | |`,
          `| a fresh handle's first hybrid search (model load, one read of the vectors) / its second (loads the vector copy) | ${r.freshHandle.firstSearchMs} / ${r.freshHandle.secondSearchMs} ms | |`,
          `| keyword-only search p50 / p95 / p99 | ${r.keywordSearchMs.p50} / ${r.keywordSearchMs.p95} / ${r.keywordSearchMs.p99} ms | |`,
          `| ingest with write-time vectors | ${r.ingestPerSecond.toLocaleString('en')} memories/s | |`,
          `| train the built-in model and re-embed everything | ${r.trainAndEmbedSeconds} s | |`,
          `| database size / peak RSS | ${r.dbBytes === null ? '?' : (r.dbBytes / 2 ** 20).toFixed(0) + ' MiB'} / ${r.peakRssMiB} MiB | |`,
        ].join('\n'),
      );
    }
    return r;
  },
  human: (r: LatencyBenchResult) =>
    `${r.memories} memories: hybrid p50 ${r.hybridSearchMs.p50} ms, p95 ${r.hybridSearchMs.p95} ms, p99 ${r.hybridSearchMs.p99} ms (vector index: ${indexSummary(r)}); right after a write p95 ${r.afterWriteSearchMs.p95} ms; keyword p95 ${r.keywordSearchMs.p95} ms; ingest ${r.ingestPerSecond}/s; train+embed ${r.trainAndEmbedSeconds} s`,
};

/** Which vector index answered the timed hybrid queries, how long an approximate one took to build, and how often the exact scan took over. */
function indexSummary(r: LatencyBenchResult): string {
  const v = r.vectorIndex;
  if (!v.kind) return 'no vector list ran';
  if (v.kind === 'exact' && v.fallbacks === 0) return `exact scan (${v.reason})`;
  return `approximate HNSW (usearch), built in ${v.buildSeconds} s; exact fallbacks in ${v.fallbacks} of ${r.queries} queries`;
}
