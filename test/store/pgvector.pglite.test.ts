/**
 * The pgvector SQL path, run in-process by pglite with its pgvector build:
 * detection, the vector table with its HNSW index, and the nearest-neighbour
 * query, exactly as the adapter's pgvector.ts writes them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { detectPgvector, NEAREST_SQL, toVectorLiteral, vectorSchemaSql } from '../../src/adapters/postgres/pgvector.ts';

test('pgvector: detection, HNSW index and nearest-neighbour query', async () => {
  const db = new PGlite({ extensions: { vector } });
  try {
    assert.equal(await detectPgvector(db), true);
    for (const stmt of vectorSchemaSql(3)) await db.exec(stmt);
    const idx = await db.query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE indexname = 'pgvector_embeddings_hnsw'");
    assert.match(idx.rows[0]!.indexdef, /USING hnsw \(embedding vector_cosine_ops\)/);
    const rows: [string, number[]][] = [
      ['north', [0, 1, 0]],
      ['east', [1, 0, 0]],
      ['north-east', [0.7, 0.7, 0]],
      ['up', [0, 0, 1]],
    ];
    for (const [id, v] of rows) await db.query('INSERT INTO pgvector_embeddings (memory_id, model, embedding) VALUES ($1, $2, $3::vector)', [id, 'test-3d', toVectorLiteral(v)]);
    await db.query("INSERT INTO pgvector_embeddings (memory_id, model, embedding) VALUES ('other-model', 'm2', '[0,1,0]')");
    const hits = await db.query<{ memory_id: string; similarity: number }>(NEAREST_SQL, [toVectorLiteral([0.1, 1, 0]), 'test-3d', 2]);
    assert.deepEqual(hits.rows.map((r) => r.memory_id), ['north', 'north-east']);
    assert.ok(hits.rows[0]!.similarity > 0.99);
    // With sequential scans off the planner must be able to answer from the HNSW index.
    await db.exec('SET enable_seqscan = off');
    const plan = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${NEAREST_SQL.replaceAll('$1', "'[0.1,1,0]'").replace('$2', "'test-3d'").replace('$3', '2')}`);
    assert.match(plan.rows.map((r) => r['QUERY PLAN']).join('\n'), /pgvector_embeddings_hnsw/);
  } finally {
    await db.close();
  }
});
