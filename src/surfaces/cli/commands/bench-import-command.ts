import { benchImport, type ImportBenchResult } from '../../../bench/import.ts';
import { BENCH_FILE, benchBackend, machineNote, writeBenchSection } from '../../../bench/report.ts';
import type { Command } from '../command.ts';
import { num } from './options.ts';


export const benchImportCmd: Command = {
  name: 'import',
  usage: 'import [--n 100000] [--db path|url] [--no-write]',
  summary: 'a synthetic JSONL file: first import, the same file again unchanged, memory_get on its lines',
  options: { n: { type: 'string' }, 'no-write': { type: 'boolean' } },
  async run(ctx) {
    const n = num(ctx, 'n') ?? 100_000;
    const db = ctx.values.db ? ctx.db : undefined;
    const r = await benchImport({ n, ...(db ? { db } : {}), ...(ctx.isTTY && !ctx.json ? { onProgress: (phase: string) => ctx.stderr(`${phase}...\n`) } : {}) });
    if (!ctx.values['no-write']) {
      const b = benchBackend(db);
      writeBenchSection(
        BENCH_FILE,
        `import${b.suffix}`,
        `Import of one JSONL file (${b.label})`,
        [
          `Command: \`mnemos bench import --n ${n}${b.suffix ? ' --db postgres://...' : ''}\` on ${machineNote()}.`,
          `A synthetic file of ${n.toLocaleString('en')} memory lines (${(r.fileBytes / 2 ** 20).toFixed(1)} MiB, no keys: each line is identified by its file and line), untrained built-in model.`,
          '',
          '| figure | measured |',
          '|---|---|',
          `| first import, into an empty store (one transaction) | ${r.first.seconds} s, ${r.first.linesPerSecond.toLocaleString('en')} lines/s, ${r.first.created.toLocaleString('en')} created |`,
          `| the same file again, nothing changed | ${r.again.seconds} s, ${r.again.linesPerSecond.toLocaleString('en')} lines/s, ${r.again.unchanged.toLocaleString('en')} unchanged, ${r.again.created} created |`,
          `| memory_get {path, from, lines: 5} at the start / middle / end | ${r.sourceLinesMs.start} / ${r.sourceLinesMs.middle} / ${r.sourceLinesMs.end} ms |`,
          `| peak RSS (the whole run) | ${r.peakRssMiB} MiB |`,
        ].join('\n'),
      );
    }
    return r;
  },
  human: (r: ImportBenchResult) =>
    `${r.lines} lines: first import ${r.first.seconds}s (${r.first.linesPerSecond}/s), again ${r.again.seconds}s (${r.again.unchanged} unchanged); memory_get ${r.sourceLinesMs.start} / ${r.sourceLinesMs.middle} / ${r.sourceLinesMs.end} ms; peak RSS ${r.peakRssMiB} MiB`,
};
