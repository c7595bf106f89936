import { BENCH_FILE, machineNote, writeBenchSection } from '../../../bench/report.ts';
import { benchConsolidate, type ConsolidateBenchResult } from '../../../lifecycle/bench.ts';
import type { Command } from '../command.ts';
import { num, str } from './options.ts';

export function consolidateSection(n: number, r: ConsolidateBenchResult): string {
  const c = r.counts;
  const t = r.timings;
  return [
    `Command: \`mnemos bench consolidate --n ${n}\` on ${machineNote()}.`,
    '',
    'Synthetic memories of mixed types, ages 0-60 days, 2% near-duplicates, 1% goals, 1% past TTLs, a named person and organisation in a fifth; the first pass over them, so most memories change lifecycle (the heaviest case: every change is an audited write).',
    '',
    '| figure | measured | target |',
    '|---|---|---|',
    `| one full pass at ${n.toLocaleString('en')} memories | ${r.seconds} s wall, ${r.cpuSeconds} s CPU (load average ${r.loadAverage} during the run) | <= 10 s at 100k |`,
    `| phases: load / lifecycle / merge / purge / orphans+goals / graph / vectors | ${[t.load, t.lifecycle, t.merge, t.purge, t.orphans, t.graph, t.vectors].map((x) => `${((x ?? 0) / 1000).toFixed(1)}`).join(' / ')} s | |`,
    `| lifecycle moves (consolidated / archived / expired / TTL) | ${c.consolidated ?? 0} / ${c.archived ?? 0} / ${c.expired ?? 0} / ${c.ttlExpired ?? 0} | |`,
    `| merges | ${c.merged ?? 0} | |`,
    `| graph: memories indexed / entities / relations (closed) | ${c.graphMemories ?? 0} / ${c.entitiesCreated ?? 0} / ${c.relationsAdded ?? 0} (${c.relationsClosed ?? 0}) | |`,
    `| peak RSS during the pass | ${r.peakRssMiB} MiB | |`,
    `| before the pass: training the built-in model (worker thread; from the newest 200,000 memories at most) and re-embedding all ${n.toLocaleString('en')} | ${r.modelSeconds === null ? 'embeddings off' : `${r.modelSeconds} s`} | (due again when the store has doubled) |`,
  ].join('\n');
}

export const benchConsolidateCmd: Command = {
  name: 'consolidate',
  usage: 'consolidate [--n 100000] [--db path] [--no-write]',
  summary: 'one full consolidation pass (importance, TTL, merges, graph) over synthetic memories',
  options: { n: { type: 'string' }, 'no-write': { type: 'boolean' } },
  async run(ctx) {
    const n = num(ctx, 'n') ?? 100_000;
    const progress = ctx.isTTY && !ctx.json ? (d: number, t: number) => ctx.stderr(`\rseeding ${d}/${t}${d === t ? '\n' : ''}`) : undefined;
    const r = await benchConsolidate({ n, ...(str(ctx, 'db') && ctx.values.db ? { db: ctx.db } : {}), ...(progress ? { onProgress: progress } : {}) });
    if (!ctx.values['no-write']) {
      // The 100k figure is the target's; other sizes get a section of their own instead of replacing it.
      if (n === 100_000) writeBenchSection(BENCH_FILE, 'consolidate', 'Consolidation pass (SQLite)', consolidateSection(n, r));
      else writeBenchSection(BENCH_FILE, `consolidate-${n}`, `Consolidation pass at ${n.toLocaleString('en')} memories (SQLite)`, consolidateSection(n, r));
    }
    return r;
  },
  human: (r: ConsolidateBenchResult) =>
    `consolidated ${r.memories} memories in ${r.seconds}s (${r.memoriesPerSecond}/s); ${Object.entries(r.counts)
      .filter(([, v]) => v)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; peak RSS ${r.peakRssMiB} MiB (seeding took ${r.ingestSeconds}s)`,
};
