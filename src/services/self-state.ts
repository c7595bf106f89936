import type { ServiceContext } from './context.ts';
import { journalBridgeParts } from './journal-bridge-parts.ts';

export type PartState = 'on' | 'off' | 'unavailable';

export interface PartReport {
  part: string;
  state: PartState;
  why: string;
  /** The setting or action that changes the state; null when nothing needs changing. */
  setting: string | null;
}

export interface SelfState {
  backend: string;
  parts: PartReport[];
}

/** Surfaces may add what only they know (e.g. which transports are serving). */
export interface SelfStateExtras {
  parts?: PartReport[];
}

/**
 * Which parts of the engine are on, off or unavailable, and why. Built from
 * the store's declared capabilities and the engine config, never from backend
 * names, so a new adapter reports itself correctly.
 */
export function selfState(ctx: ServiceContext, extras: SelfStateExtras = {}): SelfState {
  const caps = ctx.store.capabilities;
  const parts: PartReport[] = [
    {
      part: 'keyword_search',
      state: caps.keywordSearch ? 'on' : 'unavailable',
      why: caps.keywordSearch ? `BM25 full-text index in the ${ctx.store.backend} store` : `the ${ctx.store.backend} backend has no full-text index`,
      setting: caps.keywordSearch ? null : 'use a backend with keyword search (--db)',
    },
    {
      part: 'embeddings',
      state: 'unavailable',
      why: 'no embedding model is configured in this build; search is keyword only',
      setting: 'an embedding provider (coming with the embeddings issue); until then memory_search falls back to keyword search',
    },
    {
      part: 'vector_search',
      state: caps.vectors ? 'off' : 'unavailable',
      why: caps.vectors ? 'the store can hold vectors but no embedding model fills them' : `the ${ctx.store.backend} store does not hold vectors yet`,
      setting: caps.vectors ? 'configure an embedding provider' : 'a PostgreSQL store with pgvector (--db postgres://...) once that backend ships, or the SQLite vector index',
    },
    {
      part: 'postgresql',
      state: ctx.store.backend === 'postgres' ? 'on' : 'off',
      why: ctx.store.backend === 'postgres' ? 'the store is PostgreSQL' : `the store is ${ctx.store.backend} at ${ctx.store.location}`,
      setting: ctx.store.backend === 'postgres' ? null : '--db postgres://user@host/db or MNEMOS_DB',
    },
    {
      part: 'multi_process',
      state: caps.multiProcess ? 'on' : 'off',
      why: caps.multiProcess ? 'several processes may share the store' : 'one process at a time',
      setting: null,
    },
    { part: 'consolidation', state: 'unavailable', why: 'the consolidation scheduler is not part of this build yet', setting: null },
    { part: 'dreams', state: 'unavailable', why: 'the dream engine is not part of this build yet', setting: null },
    { part: 'curiosity', state: 'unavailable', why: 'the curiosity engine is not part of this build yet', setting: null },
    {
      part: 'two_step_changes',
      state: 'on',
      why: `forget and edit need a preview token, valid ${Math.round(ctx.config.previewTtlMs / 60000)} minutes`,
      setting: 'config previewTtlMs',
    },
    ...journalBridgeParts(ctx),
    ...(extras.parts ?? []),
  ];
  return { backend: ctx.store.backend, parts };
}
