import { nameKey, normalizeName } from '../../domain/name-keys.ts';

/**
 * Graph name keys written before names kept the marks of scripts other than
 * Latin and Greek (SQLite migration 17, PostgreSQL 18). The stored keys had
 * every mark stripped, so a Thai or Devanagari name was found under the key
 * of another name; each is computed again the way it is written now. An
 * entity's key comes from the mention that created it (a fuller display name
 * does not change it), so it is recomputed from the name or mention whose old
 * key it is. Entities the old keys already joined stay joined; only the keys move.
 */

/** The key as it was written before: every combining mark stripped. Frozen here; only this migration reads it. */
export function strippedKey(s: string): string {
  return nameKey(s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase());
}

/** Only a name with a character outside ASCII can have a different key now. */
export function mayMove(s: string): boolean {
  return /[^\x00-\x7f]/.test(s);
}

/** The new key of an entity from its stored key and the names it was seen under (its name first); null when it stays. */
export function movedEntityKey(norm: string, names: readonly string[]): string | null {
  const source = names.find((n) => strippedKey(n) === norm);
  if (source === undefined) return null;
  const now = normalizeName(source);
  return now === norm ? null : now;
}

/** The new key of an evidence row's mention; null when it stays. */
export function movedMentionKey(mention: string, norm: string | null): string | null {
  const now = normalizeName(mention);
  return now === norm ? null : now;
}

/** What the re-key moves: mention -> its new key, entity id -> its new key. */
export interface GraphKeyMoves {
  mentions: Map<string, string>;
  entities: Map<string, string>;
}

/**
 * The keys to move, computed from the evidence and entities read once each.
 * Asking the database per entity for its mentions, and updating evidence
 * per mention (no index on mention: a scan of the evidence each time), made
 * the re-key quadratic: 20,000 Cyrillic names held a PostgreSQL store's
 * first open for three and a half minutes, silent.
 * `seen`: each entity's distinct mentions, in a stable order.
 */
export function graphKeyMoves(
  mentions: Iterable<{ mention: string; norm: string | null }>,
  entities: Iterable<{ id: string; name: string; norm: string }>,
  seen: Iterable<{ entity_id: string; mention: string }>,
): GraphKeyMoves {
  const movedMentions = new Map<string, string>();
  for (const r of mentions) {
    if (!mayMove(r.mention) || movedMentions.has(r.mention)) continue;
    const now = movedMentionKey(r.mention, r.norm);
    if (now !== null) movedMentions.set(r.mention, now);
  }
  const mentionsOf = new Map<string, string[]>();
  for (const r of seen) {
    const list = mentionsOf.get(r.entity_id);
    if (list) list.push(r.mention);
    else mentionsOf.set(r.entity_id, [r.mention]);
  }
  const movedEntities = new Map<string, string>();
  for (const e of entities) {
    if (!mayMove(e.norm)) continue;
    const now = movedEntityKey(e.norm, [e.name, ...(mentionsOf.get(e.id) ?? [])]);
    if (now !== null) movedEntities.set(e.id, now);
  }
  return { mentions: movedMentions, entities: movedEntities };
}
