import type { Principal } from '../domain/principal.ts';
import { BuiltinEmbedder } from '../embedding/builtin/builtin-embedder.ts';
import type { StoreStats } from '../ports/store.ts';
import type { ServiceContext } from './context.ts';
import { embeddingsFor } from './embeddings.ts';

export interface Status {
  backend: string;
  /** Where the store lives (a file path, a URL without its password); null for guests and agents. */
  location: string | null;
  schemaVersion: number;
  namespace: string;
  /** bytes and auditEntries are the whole store's, so null for guests and agents. */
  memories: Omit<StoreStats, 'bytes' | 'auditEntries'> & { bytes: number | null; auditEntries: number | null };
  capabilities: Record<string, boolean>;
  embeddings: EmbeddingStatus;
}

export interface EmbeddingStatus {
  provider: 'builtin' | 'openai' | 'onnx' | 'off';
  /** The vector space searches use now; null when vectors are off, unavailable, or the store cannot hold them. */
  model: string | null;
  /**
   * Built-in embedder only: whether its learned part exists. Until it does,
   * vectors know only word pieces; consolidation trains it once the
   * namespace holds enough memories. Null for other providers.
   */
  learned: boolean | null;
  /** Current memories the caller can see that carry a vector of that model. */
  vectors: number;
  /**
   * The memories `vectors` is out of: current ones the caller can see that a
   * search considers (not archived, expired or past their TTL). A merge loser
   * is archived without a vector and a backfill embeds only these, so
   * `vectors` compared with `memories.total` would report a gap nothing fills.
   */
  searchable: number;
}

export async function status(ctx: ServiceContext, p: Principal): Promise<Status> {
  const [stats, embeddings] = await Promise.all([ctx.store.stats(p), embeddingStatus(ctx, p)]);
  // The audit chain and the file are the whole store's: their size tells of
  // everyone's writes, owner-only ones included, and the path of the host.
  const owner = p.role === 'owner';
  const memories = owner ? stats : { ...stats, bytes: null, auditEntries: null };
  return {
    backend: ctx.store.backend,
    location: owner ? ctx.store.location : null,
    schemaVersion: memories.schemaVersion,
    namespace: p.namespace,
    memories,
    capabilities: { ...ctx.store.capabilities },
    embeddings,
  };
}

async function embeddingStatus(ctx: ServiceContext, p: Principal): Promise<EmbeddingStatus> {
  const provider = ctx.config.embeddings.provider;
  // An embedder that cannot load (a missing ONNX package) is reported as no model; self_state says why.
  const svc = await embeddingsFor(ctx, p).catch(() => null);
  if (!svc || !ctx.store.vectors) return { provider, model: null, learned: null, vectors: 0, searchable: await ctx.store.count(p, {}) };
  const [vectors, searchable] = await Promise.all([ctx.store.vectors.count(p, svc.model), ctx.store.count(p, {})]);
  return {
    provider,
    model: svc.model,
    learned: svc.embedder instanceof BuiltinEmbedder ? svc.embedder.trained : null,
    vectors,
    searchable,
  };
}
