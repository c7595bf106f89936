import type { VectorRow, VectorRows } from './vector-cache.ts';
import { VectorMatrix } from './vector-matrix.ts';
import { TopK, bestFirst } from './vector-top-k.ts';

/** Rows scored per pass of the kernel: enough to amortize the call, small enough to stay in cache (192 dims: 768 KiB). */
const CHUNK_ROWS = 1024;

/**
 * One exact search straight from the stored rows of a namespace, keeping no
 * copy: each row `admits` lets through goes through a small matrix a chunk
 * at a time and the best `limit` are kept, with their row keys. A process
 * that searches once (a CLI command) pays one read of the vectors instead of
 * building the whole matrix it would throw away: at 100k vectors the copy
 * costs about twice the read, and its memory.
 *
 * The same kernel scores each row as the in-process copy does (VectorMatrix,
 * row by row), and the same order ranks them, so the hits, scores and order
 * are those the copy would give.
 */
export async function streamedNearest(
  rows: VectorRows,
  q: { model: string; vector: Float32Array; namespace: string; limit: number; admits: (rowid: number) => boolean },
): Promise<{ ranked: { rowid: number; id: string; score: number }[]; inNamespace: number }> {
  const dims = q.vector.length;
  const matrix = new VectorMatrix(dims, { initialRows: CHUNK_ROWS, quantized: false });
  /** Ids and row keys of the rows scored so far, by their position in the stream: the heap's tie-break reads the ids. */
  const ids: string[] = [];
  const rowids: number[] = [];
  const heap = new TopK(q.limit, ids);
  let inNamespace = 0;
  let pending = 0;
  const flush = () => {
    const scores = matrix.scores(q.vector, pending);
    const first = ids.length - pending;
    for (let i = 0; i < pending; i++) {
      const score = scores[i]!;
      if (score >= heap.floor) heap.offer(first + i, score);
    }
    pending = 0;
  };
  const visit = (r: VectorRow) => {
    if (r.namespace !== q.namespace) return;
    inNamespace++;
    if (r.vector.length !== dims || !q.admits(r.rowid)) return;
    matrix.set(pending++, r.vector);
    ids.push(r.id);
    rowids.push(r.rowid);
    if (pending === CHUNK_ROWS) flush();
  };
  await (rows.scanVectors ? rows.scanVectors(q.model, visit) : rows.eachVector(q.model, null, visit));
  if (pending > 0) flush();
  return { ranked: bestFirst(heap, ids).map((b) => ({ rowid: rowids[b.slot]!, id: ids[b.slot]!, score: b.score })), inNamespace };
}
