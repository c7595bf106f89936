import { machineNote, writeBenchSection } from '../../../bench/report.ts';
import { benchConsolidate, type ConsolidateBenchResult } from '../../../lifecycle/bench.ts';
import type { Command } from '../command.ts';
import { num, str } from './options.ts';

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
      const c = r.counts;
      writeBenchSection(
        'docs/BENCHMARKS.md',
        'consolidate',
        'Consolidation pass (SQLite)',
        [
          `Command: \`mnemos bench consolidate --n ${n}\` on ${machineNote()}.`,
          '',
          'Synthetic memories of mixed types, ages 0-60 days, 2% near-duplicates, 1% goals, 1% past TTLs, a named person and organisation in a fifth.',
          '',
          '| figure | measured | target |',
          '|---|---|---|',
          `| one full pass at ${n.toLocaleString('en')} memories | ${r.seconds} s (${r.memoriesPerSecond.toLocaleString('en')} memories/s) | <= 10 s at 100k |`,
          `| lifecycle moves (consolidated / archived / expired / TTL) | ${c.consolidated ?? 0} / ${c.archived ?? 0} / ${c.expired ?? 0} / ${c.ttlExpired ?? 0} | |`,
          `| merges | ${c.merged ?? 0} | |`,
          `| graph: memories indexed / entities / relations | ${c.graphMemories ?? 0} / ${c.entitiesCreated ?? 0} / ${c.relationsAdded ?? 0} | |`,
          `| peak RSS during the pass | ${r.peakRssMiB} MiB | |`,
        ].join('\n'),
      );
    }
    return r;
  },
  human: (r: ConsolidateBenchResult) =>
    `consolidated ${r.memories} memories in ${r.seconds}s (${r.memoriesPerSecond}/s); ${Object.entries(r.counts)
      .filter(([, v]) => v)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; peak RSS ${r.peakRssMiB} MiB (seeding took ${r.ingestSeconds}s)`,
};
