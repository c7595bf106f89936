import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemory } from '../surfaces/library/open-memory.ts';
import { SyntheticText } from './synthetic.ts';

export interface ImportBenchOptions {
  /** Lines of the synthetic JSONL file. */
  n: number;
  /** Store location; a fresh temporary SQLite file when absent. Any store works (the file is new to it); an empty one gives figures that compare. */
  db?: string;
  onProgress?: (phase: string) => void;
}

export interface ImportRun {
  seconds: number;
  linesPerSecond: number;
  created: number;
  unchanged: number;
}

export interface ImportBenchResult {
  lines: number;
  fileBytes: number;
  /** Into an empty store. */
  first: ImportRun;
  /** The same file again, nothing changed: everything must come back unchanged. */
  again: ImportRun;
  /** memory_get {path, from, lines: 5} near the start, the middle and the end of the file. */
  sourceLinesMs: { start: number; middle: number; end: number };
  peakRssMiB: number;
}

const WRITE_LINES = 10_000;

/**
 * Imports a synthetic JSONL file of `n` memory lines (no keys, so each line is
 * identified by its file and line), imports it again unchanged, then reads
 * five lines back at three places. What a user pays to load a log and keep
 * re-syncing it.
 */
export async function benchImport(opts: ImportBenchOptions): Promise<ImportBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'mnemos-bench-import-'));
  const file = join(dir, 'memories.jsonl');
  try {
    opts.onProgress?.('writing the file');
    writeSyntheticJsonl(file, opts.n);
    const mem = await openMemory({ db: opts.db ?? join(dir, 'bench.db') });
    try {
      const timed = async (): Promise<ImportRun> => {
        const t = performance.now();
        const r = await mem.import(file);
        const seconds = (performance.now() - t) / 1000;
        return { seconds: round(seconds), linesPerSecond: Math.round(opts.n / seconds), created: r.created, unchanged: r.unchanged };
      };
      opts.onProgress?.('first import');
      const first = await timed();
      opts.onProgress?.('importing again');
      const again = await timed();
      const read = async (from: number) => {
        const t = performance.now();
        const r = await mem.sourceLines({ path: file, from, lines: 5 });
        if (r.lines.length === 0) throw new Error(`memory_get read no line at ${from}`);
        return round(performance.now() - t);
      };
      const last = Math.max(1, opts.n - 4);
      const sourceLinesMs = { start: await read(1), middle: await read(Math.max(1, Math.floor(opts.n / 2))), end: await read(last) };
      return { lines: opts.n, fileBytes: statSync(file).size, first, again, sourceLinesMs, peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) };
    } finally {
      await mem.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The file is written a block of lines at a time: a million lines is some 170 MB. */
function writeSyntheticJsonl(path: string, n: number): void {
  const gen = new SyntheticText(7);
  const fd = openSync(path, 'w');
  try {
    for (let done = 0; done < n; done += WRITE_LINES) {
      const block: string[] = [];
      for (let i = done; i < Math.min(n, done + WRITE_LINES); i++) block.push(JSON.stringify({ text: gen.sentence() }));
      writeSync(fd, block.join('\n') + '\n');
    }
  } finally {
    closeSync(fd);
  }
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
