/**
 * pgvector: detection, and the SQL an approximate (HNSW) index would issue.
 * The adapter stores and scans vectors without the extension (vectors.ts);
 * it does not route queries here, because an HNSW search cuts its top-k
 * before the scope and filter SQL runs, which the port forbids (a guest's
 * results must be ranked among what the guest may read). The statements are
 * plain strings so the in-process pglite test runs exactly this SQL; the
 * table name differs from the adapter's own `memory_vectors` so the two can
 * never be confused.
 */
export async function detectPgvector(c: { query(text: string): Promise<{ rows: unknown[] }> }): Promise<boolean> {
  const r = await c.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
  return r.rows.length > 0;
}

/** Table + HNSW index (cosine) for embeddings of one model and dimension. */
export function vectorSchemaSql(dimensions: number): string[] {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 16000) throw new RangeError(`bad vector dimension ${dimensions}`);
  return [
    'CREATE EXTENSION IF NOT EXISTS vector',
    `CREATE TABLE IF NOT EXISTS pgvector_embeddings (memory_id TEXT PRIMARY KEY, model TEXT NOT NULL, embedding vector(${dimensions}) NOT NULL)`,
    'CREATE INDEX IF NOT EXISTS pgvector_embeddings_hnsw ON pgvector_embeddings USING hnsw (embedding vector_cosine_ops)',
  ];
}

/** Nearest neighbours by cosine distance; $1 = query vector literal, $2 = model, $3 = k. */
export const NEAREST_SQL =
  'SELECT memory_id, 1 - (embedding <=> $1::vector) AS similarity FROM pgvector_embeddings WHERE model = $2 ORDER BY embedding <=> $1::vector LIMIT $3';

/** pgvector's text form of a vector: '[0.1,0.2,...]'. */
export function toVectorLiteral(v: ArrayLike<number>): string {
  return `[${Array.from(v, (x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;
}
