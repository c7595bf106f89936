import { missingModelFilesNow } from '../embedding/providers/onnx-directory.ts';
import { dirname } from 'node:path';
import type { Principal } from '../domain/principal.ts';
import type { ServiceContext } from './context.ts';
import { journalPathOf } from './journal-reads.ts';
import { journalBridgeParts } from './journal-bridge-parts.ts';

export type PartState = 'on' | 'off' | 'unavailable';

export interface PartReport {
  part: string;
  state: PartState;
  why: string;
  /** The setting or action that changes the state; null when nothing needs changing. */
  setting: string | null;
  /** A timer's period, for parts that run on one (a server's consolidation). */
  everyMs?: number;
}

export interface SelfState {
  backend: string;
  parts: PartReport[];
  notes: string[];
}

/**
 * Surfaces may add what only they know (e.g. which transports are serving).
 * A part named like one of the engine's replaces it: a server knows whether
 * its consolidation timer runs, the engine only that consolidation exists.
 */
export interface SelfStateExtras {
  parts?: PartReport[];
}

/**
 * Which parts of the engine are on, off or unavailable, and why. Built from
 * the store's declared capabilities and the engine config, never from backend
 * names, so a new adapter reports itself correctly.
 */
export function selfState(ctx: ServiceContext, extras: SelfStateExtras = {}, viewer?: Principal): SelfState {
  const caps = ctx.store.capabilities;
  const parts: PartReport[] = [
    {
      part: 'keyword_search',
      state: caps.keywordSearch ? 'on' : 'unavailable',
      why: caps.keywordSearch ? `BM25 full-text index in the ${ctx.store.backend} store` : `the ${ctx.store.backend} backend has no full-text index`,
      setting: caps.keywordSearch ? null : 'use a backend with keyword search (--db)',
    },
    embeddingsPart(ctx),
    {
      part: 'vector_search',
      state: caps.vectors && ctx.config.embeddings.provider !== 'off' ? 'on' : caps.vectors ? 'off' : 'unavailable',
      why: !caps.vectors
        ? `the ${ctx.store.backend} store does not hold vectors; memory_search fuses keyword, graph and ledger lists only`
        : ctx.config.embeddings.provider === 'off'
          ? 'embeddings are off, so search is keyword-only'
          : `${vectorIndexWhy(ctx)}, fused with keyword results (RRF)${
              viewer && viewer.role !== 'owner' && ctx.config.embeddings.provider === 'builtin'
                ? "; for you only while the built-in model is untrained: trained, it is learnt from the owner's memories too and serves the owner's searches only (search explain says which lists ran)"
                : ''
            }`,
      setting: caps.vectors
        ? 'MNEMOS_EMBEDDINGS=builtin|openai|onnx|off; MNEMOS_VECTOR_INDEX=auto|exact|approximate and MNEMOS_VECTOR_INDEX_THRESHOLD (vectors per namespace and model); MNEMOS_VECTOR_GRAPH_DIR (where a built approximate index is saved; off: nowhere)'
        : 'use the SQLite store (default) for vector search',
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
    {
      part: 'consolidation',
      state: 'on',
      why: 'importance, forgetting, near-duplicate merges, TTLs, open loops and orphan rescue run as a job in the database when asked: `mnemos consolidate` (a server or an owner\'s MCP session says here whether its timer runs)',
      setting: 'mnemos serve --consolidate-every-ms n (default 30 min, 0 = off) or MNEMOS_CONSOLIDATE_EVERY_MS',
    },
    // Only a server serves the page; it says so itself (surfaces/http/server.ts), replacing this.
    { part: 'web_inspector', state: 'off', why: 'the web inspector is a page of the HTTP server: `mnemos serve` serves it at /inspector', setting: 'mnemos serve' },
    { part: 'dreams', state: 'unavailable', why: 'the dream engine is not part of this build yet', setting: null },
    { part: 'curiosity', state: 'unavailable', why: 'the curiosity engine is not part of this build yet', setting: null },
    // Seed 002's other parts, said to be missing rather than left out: an agent asked about them had no signal either way.
    { part: 'hormones', state: 'unavailable', why: 'hormone levels, the emotional briefing and tone guidance are not part of this build yet (memory_status has none)', setting: null },
    {
      part: 'skill_learning',
      state: 'unavailable',
      why: 'skills are stored as memories of type skill and never decay (frozen), but learning, patching and curating them from use and errors is not part of this build yet',
      setting: null,
    },
    {
      part: 'reconsolidation',
      state: 'on',
      why: 'reading a memory by id recalls it (activated, strengthened a little) and opens its labile window (memory_get labileUntil); memory_edit changes a memory as a new version inside or outside the window, and the library\'s lifecycle.correct turns a correction after the window into a new memory that supersedes the old',
      setting: 'library: openMemory({ lifecycle: { labileWindowMs } }) (default 30 min)',
    },
    {
      part: 'two_step_changes',
      state: 'on',
      why: `forget and edit need a preview token, valid ${Math.round(ctx.config.previewTtlMs / 60000)} minutes`,
      setting: 'config previewTtlMs',
    },
    ...journalBridgeParts(ctx, viewer?.namespace ?? 'default'),
  ];
  for (const extra of extras.parts ?? []) {
    const at = parts.findIndex((x) => x.part === extra.part);
    if (at >= 0) parts[at] = extra;
    else parts.push(extra);
  }
  // Backend facts worth knowing (e.g. pgvector missing, so vectors are scanned exactly).
  const state = { backend: ctx.store.backend, parts, notes: ctx.store.notes?.() ?? [] };
  return viewer && viewer.role !== 'owner' ? withoutPaths(ctx, state, viewer.namespace) : state;
}

/**
 * Guests and agents learn what is on and why, not where the host keeps its
 * files (the store, the journal, saved graphs, a model directory): memory_status
 * hides the store's location from them for the same reason.
 */
function withoutPaths(ctx: ServiceContext, state: SelfState, namespace: string): SelfState {
  const paths = [ctx.store.location, dirname(ctx.store.location), journalPathOf(ctx, namespace, { inPlace: true }), ctx.config.vectorIndex.graphDir, ctx.config.embeddings.provider === 'onnx' ? ctx.config.embeddings.directory : null]
    .filter((x): x is string => typeof x === 'string' && x.length > 1 && x !== '.')
    .sort((a, b) => b.length - a.length);
  const hide = (text: string) => paths.reduce((t, path) => t.replaceAll(path, '(a path on the server)'), text);
  return {
    ...state,
    parts: state.parts.map((x) => ({ ...x, why: hide(x.why), setting: x.setting === null ? null : hide(x.setting) })),
    notes: state.notes.map(hide),
  };
}

/** Which index answers vector queries under this configuration (the store's capability says whether an approximate one can be used). */
function vectorIndexWhy(ctx: ServiceContext): string {
  const { mode, threshold } = ctx.config.vectorIndex;
  const exact = 'exact cosine scan of the stored vectors';
  if (mode === 'exact') return `${exact} (the approximate index is turned off)`;
  if (!ctx.store.capabilities.approximateVectorIndex) return `${exact} (an approximate index is not available in this installation: the optional usearch package is missing)`;
  const saved = ctx.config.vectorIndex.graphDir === null ? '; a built index is not saved, so each process builds its own' : '; a built index is saved and the next process loads it';
  if (mode === 'approximate') return `approximate HNSW index (usearch) per namespace and model, candidates checked against scope and scored exactly; the exact scan answers while it builds${saved}`;
  return `${exact} up to ${threshold.toLocaleString('en')} vectors per namespace and model, an approximate HNSW index (usearch) above (search explain says which answered)${saved}`;
}

function embeddingsPart(ctx: ServiceContext): PartReport {
  const e = ctx.config.embeddings;
  const setting = 'MNEMOS_EMBEDDINGS=builtin|openai|onnx|off (openai: MNEMOS_EMBEDDINGS_URL, _MODEL, _DIMENSIONS, _KEY; onnx: MNEMOS_EMBEDDINGS_DIR, _POOLING, _QUERY_PREFIX, _DOCUMENT_PREFIX)';
  switch (e.provider) {
    case 'off':
      return { part: 'embeddings', state: 'off', why: 'turned off by configuration', setting };
    case 'builtin':
      return {
        part: 'embeddings',
        state: 'on',
        why: 'built-in offline embedder (no network, no download): subword hashing plus a model learned from this store\'s text, which consolidation trains once a namespace holds 100 memories and again whenever it has doubled (`mnemos embed --backfill --retrain` trains it at once; `mnemos status` and memory_status say whether it is trained)',
        setting,
      };
    case 'openai':
      return { part: 'embeddings', state: 'on', why: `OpenAI-compatible endpoint ${e.baseUrl} model ${e.model}`, setting };
    case 'onnx': {
      // A directory without the model's files was reported "on" while every search went without vectors.
      const missing = missingModelFilesNow(e.directory);
      if (missing.length > 0) return { part: 'embeddings', state: 'unavailable', why: `the local ONNX model directory ${e.directory} lacks ${missing.join(', ')}; memories are stored without vectors and searches use keywords`, setting };
      return { part: 'embeddings', state: 'on', why: `local ONNX model directory ${e.directory}`, setting };
    }
  }
}
