import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Principal } from '../domain/principal.ts';
import { openMemory, type Mnemos } from '../surfaces/library/open-memory.ts';
import type { SearchMode } from '../services/search.ts';
import type { BeirSearch } from './beir.ts';
import type { LocomoSearch } from './locomo-harness.ts';

/**
 * Benchmark searches that go through the real engine: every document is
 * ingested through the library (full-text index, vectors, audit log), the
 * built-in embedder is trained on the store's own text by the same backfill
 * users run, and every query is an ordinary `search` call.
 */
export interface EngineBench {
  /** Store location: one for every corpus, or a function giving a fresh one per corpus (tests on PostgreSQL); default a temporary SQLite file per corpus, removed by `close`. */
  db?: string | (() => string);
  mode: SearchMode;
}

export class EngineBenchStores {
  private readonly dir = mkdtempSync(join(tmpdir(), 'mnemos-bench-'));
  private readonly open: Mnemos[] = [];
  private n = 0;

  constructor(private readonly opts: EngineBench) {}

  async store(namespace: string): Promise<Mnemos> {
    const principal: Principal = { role: 'owner', namespace, id: 'bench' };
    const { db } = this.opts;
    const location = typeof db === 'function' ? db() : (db ?? join(this.dir, `store-${this.n++}.db`));
    const m = await openMemory({ db: location, principal });
    this.open.push(m);
    return m;
  }

  async close(): Promise<void> {
    for (const m of this.open) await m.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const BATCH = 1000;

/** With `graph`, the knowledge graph is indexed (as consolidation does) before querying, so the graph list joins the fusion. */
export function engineLocomoSearch(stores: EngineBenchStores, mode: SearchMode, opts: { graph?: boolean } = {}): LocomoSearch {
  return async (turns, context) => {
    const m = await stores.store(context.sampleId.replace(/[^A-Za-z0-9._-]/g, '-'));
    for (let i = 0; i < turns.length; i += BATCH) {
      await m.rememberMany(
        turns.slice(i, i + BATCH).map((t) => ({
          text: t.document,
          type: 'episode' as const,
          origin: 'transcript' as const,
          key: `locomo:${context.sampleId}#${t.id}`,
          sessionId: `${context.sampleId}:${t.session}`,
          validFrom: t.validFrom,
          metadata: { turn: t.id, speaker: t.speaker },
        })),
      );
    }
    if (mode !== 'keyword') await m.embedBackfill({ retrain: true });
    if (opts.graph) await m.lifecycle.indexGraph({ limit: 1_000_000 });
    return async (question, limit) => {
      const r = await m.search({ query: question, limit: Math.min(limit, 200), referenceTime: context.referenceDate, mode });
      return r.hits.map((h) => String(h.memory.metadata.turn));
    };
  };
}

export function engineBeirSearch(stores: EngineBenchStores, mode: SearchMode): BeirSearch {
  return async (corpus) => {
    const m = await stores.store('beir');
    for (let i = 0; i < corpus.length; i += BATCH) {
      await m.rememberMany(corpus.slice(i, i + BATCH).map((d) => ({ text: d.title ? `${d.title}\n${d.text}` : d.text, key: `beir:${d.id}`, metadata: { doc: d.id } })));
    }
    if (mode !== 'keyword') await m.embedBackfill({ retrain: true });
    return async (query, limit) => {
      const r = await m.search({ query: query.text, limit: Math.min(limit, 200), mode });
      return r.hits.map((h) => String(h.memory.metadata.doc));
    };
  };
}
