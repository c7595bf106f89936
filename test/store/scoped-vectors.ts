/**
 * A store of unit vectors for tests that compare vector search paths under
 * scope: the owner's rows (a fifth shared with guests, one in a hundred of
 * those a 'goal', a narrow filter for a guest) and, in another namespace,
 * rows at the query vectors themselves, which would win every query if
 * scope were ignored.
 */
import type { Principal } from '../../src/domain/principal.ts';
import { mulberry32 } from '../../src/embedding/builtin/prng.ts';
import type { MemoryStore } from '../../src/ports/store.ts';
import { mem } from './contract.ts';

/** The fixture's callers: an owner and a guest of `namespace`, and an owner of another namespace. */
export function scopedPrincipals(namespace: string): { owner: Principal; guest: Principal; otherOwner: Principal } {
  return {
    owner: { role: 'owner', namespace, id: 'owner' },
    guest: { role: 'guest', namespace, id: 'visitor' },
    otherOwner: { role: 'owner', namespace: 'elsewhere', id: 'owner' },
  };
}

export function unit(v: Float32Array): Float32Array {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

export async function fillScopedVectors(
  s: MemoryStore,
  o: { owner: Principal; elsewhere: Principal; model: string; dims: number; rows: number; queries: number; seed: number; key: string },
): Promise<{ queries: Float32Array[]; elsewhere: Set<string>; vec: () => Float32Array }> {
  const r = mulberry32(o.seed);
  const vec = () => unit(Float32Array.from({ length: o.dims }, () => r() * 2 - 1));
  for (let i = 0; i < o.rows; i += 500) {
    const ops = Array.from({ length: Math.min(500, o.rows - i) }, (_, j) => {
      const n = i + j;
      const m = mem(o.owner, { text: `memory ${n}`, key: `${o.key}:${n}`, visibility: n % 5 === 0 ? 'shared' : 'owner', type: n % 500 === 0 ? 'goal' : 'fact' });
      return { kind: 'insert' as const, memory: m, onExistingSource: 'conflict' as const, vector: { model: o.model, vector: vec() } };
    });
    await s.apply(o.owner, ops);
  }
  const queries = Array.from({ length: o.queries }, vec);
  await s.apply(
    o.elsewhere,
    queries.map((q, i) => ({ kind: 'insert' as const, memory: mem(o.elsewhere, { text: `elsewhere ${i}`, key: `else:${i}` }), onExistingSource: 'conflict' as const, vector: { model: o.model, vector: q } })),
  );
  const elsewhere = new Set((await s.list(o.elsewhere, {}, { limit: o.queries + 10, offset: 0 })).map((m) => m.id));
  return { queries, elsewhere, vec };
}
