import type pg from 'pg';
import type { Memory } from '../../domain/memory.ts';
import type { WriteOp } from '../../ports/store.ts';
import { forgottenSources } from '../sql/forgotten-sources.ts';
import { rows } from './connection.ts';

/** Rows per look-up statement: a few megabytes of parameters and results. */
const CHUNK = 2000;

type IdRow = { content_hash: string; namespace: string };
/** What an insert compares under a source key; the rare change reads the whole row by its id. */
type KeyRow = { id: string; content_hash: string };

/**
 * What a batch's inserts would each look up one round trip at a time (a row
 * with the same id, the current row under the same source key), read for
 * the whole batch in a few statements. Re-importing 100,000 unchanged lines
 * spent most of its time on those 200,000 round trips.
 *
 * Read after the chain head lock is taken, so no other writer changes these
 * rows meanwhile; the batch's own writes are handled by its writer, which
 * forgets an entry when it writes over it and drops the whole set before any
 * op that is not an insert. An entry that is not here is looked up as before.
 */
export class KnownRows {
  private readonly ids = new Map<string, IdRow | null>();
  private readonly keys = new Map<string, KeyRow | null>();
  private forgottenKnown = false;
  private readonly forgottenIds = new Map<string, string>();
  private readonly forgottenSources = new Map<string, string>();

  static async read(c: pg.PoolClient, ops: readonly WriteOp[]): Promise<KnownRows> {
    const known = new KnownRows();
    const inserts = ops.flatMap((op) => (op.kind === 'insert' ? [op.memory] : []));
    for (let at = 0; at < inserts.length; at += CHUNK) {
      const part = inserts.slice(at, at + CHUNK);
      for (const m of part) known.ids.set(m.id, null);
      for (const r of await rows<IdRow & { id: string }>(c, 'SELECT id, content_hash, namespace FROM memories WHERE id = ANY($1::text[])', [part.map((m) => m.id)])) {
        known.ids.set(r.id, { content_hash: r.content_hash, namespace: r.namespace });
      }
      const keyed = part.filter((m) => m.sourceKey !== null && m.supersededAt === null);
      if (keyed.length === 0) continue;
      for (const m of keyed) known.keys.set(keyOf(m.namespace, m.ownerId, m.sourceKey!), null);
      // The partial unique index on current source keys answers each triple.
      const found = await rows<KeyRow & { namespace: string; owner_id: string; source_key: string }>(
        c,
        `SELECT m.id, m.content_hash, m.namespace, m.owner_id, m.source_key FROM memories m JOIN unnest($1::text[], $2::text[], $3::text[]) AS k(ns, ow, sk)
           ON m.namespace = k.ns AND m.owner_id = k.ow AND m.source_key = k.sk WHERE m.source_key IS NOT NULL AND m.superseded_at IS NULL`,
        [keyed.map((m) => m.namespace), keyed.map((m) => m.ownerId), keyed.map((m) => m.sourceKey)],
      );
      for (const r of found) known.keys.set(keyOf(r.namespace, r.owner_id, r.source_key), { id: r.id, content_hash: r.content_hash });
    }
    await known.readForgotten(c, ops.flatMap((op) => (op.kind === 'insert' ? [op] : [])));
    return known;
  }

  /** Which of the batch's ids and sources (with their texts) were forgotten (see sql/forgotten-sources.ts). */
  private async readForgotten(c: pg.PoolClient, ops: Extract<WriteOp, { kind: 'insert' }>[]): Promise<void> {
    if (ops.length === 0) return;
    const inserts = ops.map((op) => op.memory);
    const namespace = inserts[0]!.namespace;
    if (inserts.some((m) => m.namespace !== namespace)) return; // each insert then looks up its own
    this.forgottenKnown = true;
    if ((await rows(c, 'SELECT 1 FROM tombstones WHERE namespace = $1 LIMIT 1', [namespace])).length === 0) return;
    for (let at = 0; at < inserts.length; at += CHUNK) {
      const part = inserts.slice(at, at + CHUNK);
      for (const r of await rows<{ id: string; lineage_id: string }>(
        c,
        'SELECT i.id, i.lineage_id FROM tombstone_ids i JOIN tombstones t ON t.lineage_id = i.lineage_id WHERE i.id = ANY($1::text[]) AND t.namespace = $2',
        [part.map((m) => m.id), namespace],
      )) {
        this.forgottenIds.set(r.id, r.lineage_id);
      }
      const sources = ops.slice(at, at + CHUNK).flatMap((op) => forgottenSources(op.memory, op.filePath));
      if (sources.length === 0) continue;
      const found = await rows<{ owner_id: string; source_digest: string; content_hash: string; lineage_id: string }>(
        c,
        `SELECT t.owner_id, t.source_digest, t.content_hash, t.lineage_id FROM tombstone_sources t JOIN unnest($2::text[], $3::text[], $4::text[]) AS k(ow, sd, ch)
           ON t.namespace = $1 AND t.owner_id = k.ow AND t.source_digest = k.sd AND t.content_hash = k.ch`,
        [namespace, sources.map((s) => s[1]), sources.map((s) => s[2]), sources.map((s) => s[3])],
      );
      for (const r of found) this.forgottenSources.set(JSON.stringify([r.owner_id, r.source_digest, r.content_hash]), r.lineage_id);
    }
  }

  /** The forgotten lineage this insert would bring back (null: none), or undefined when not known. */
  forgotten(m: Memory, filePath?: string): string | null | undefined {
    if (!this.forgottenKnown) return undefined;
    const byId = this.forgottenIds.get(m.id);
    if (byId !== undefined) return byId;
    for (const source of forgottenSources(m, filePath)) {
      const lineage = this.forgottenSources.get(JSON.stringify([source[1], source[2], source[3]]));
      if (lineage !== undefined) return lineage;
    }
    return null;
  }

  /** The row with this id (null: none), or undefined when not known. */
  id(id: string): IdRow | null | undefined {
    return this.ids.get(id);
  }

  /** The current row under this source key (null: none), or undefined when not known. */
  current(namespace: string, ownerId: string, sourceKey: string): KeyRow | null | undefined {
    return this.keys.get(keyOf(namespace, ownerId, sourceKey));
  }

  /** After the batch wrote a memory: its id now exists, and its key's current row must be read again. */
  wrote(id: string, row: IdRow, namespace: string, ownerId: string, sourceKey: string | null): void {
    this.ids.set(id, row);
    if (sourceKey !== null) this.keys.delete(keyOf(namespace, ownerId, sourceKey));
  }
}

function keyOf(namespace: string, ownerId: string, sourceKey: string): string {
  return JSON.stringify([namespace, ownerId, sourceKey]);
}
