/**
 * A relation that goes (its last evidence was forgotten) leaves the chain of
 * closures it was part of: what it had closed takes over its place, closed by
 * whatever closed it, or current again when nothing did. Before, the closed
 * relation kept the end date of a relation that no longer existed, so a
 * forgotten "Alice now works at Globex" still ended Alice's job at Acme. $1 is
 * the relation being removed; it runs before the delete.
 */
export const SPLICE_SUPERSEDED_SQL = `UPDATE graph_relations SET
  valid_to = (SELECT CASE WHEN gone.superseded_by IS NULL THEN NULL ELSE gone.valid_to END FROM graph_relations gone WHERE gone.id = $1),
  superseded_by = (SELECT gone.superseded_by FROM graph_relations gone WHERE gone.id = $1)
WHERE superseded_by = $1`;

/**
 * An entity that keeps evidence after a forget is renamed and recounted from
 * what remains, and its first and last sighting too: the valid times of the
 * memories still evidencing it (a forgotten memory's date stayed as "last
 * seen"). $1 is the entity.
 */
export const RECOUNT_ENTITY_SQL = `UPDATE graph_entities SET mentions = (SELECT count(*) FROM graph_evidence WHERE entity_id = $1),
  name = (SELECT mention FROM graph_evidence WHERE entity_id = $1 AND mention IS NOT NULL GROUP BY mention ORDER BY count(*) DESC, mention LIMIT 1),
  norm = (SELECT norm FROM graph_evidence WHERE entity_id = $1 AND norm IS NOT NULL GROUP BY norm ORDER BY count(*) DESC, norm LIMIT 1),
  first_seen = coalesce((SELECT min(m.valid_from) FROM graph_evidence g JOIN memories m ON m.id = g.memory_id WHERE g.entity_id = $1), first_seen),
  last_seen = coalesce((SELECT max(m.valid_from) FROM graph_evidence g JOIN memories m ON m.id = g.memory_id WHERE g.entity_id = $1), last_seen)
WHERE id = $1`;

/**
 * The entities and relations some evidence rows named, each once, for the
 * settle after evidence went: a re-index slice's memories name the same few
 * entities hundreds of times, and each recount reads all their evidence.
 */
export function distinctHits(hit: readonly { entity_id: string | null; relation_id: string | null }[]): { entities: Set<string>; relations: Set<string> } {
  const entities = new Set<string>();
  const relations = new Set<string>();
  for (const h of hit) {
    if (h.entity_id) entities.add(h.entity_id);
    if (h.relation_id) relations.add(h.relation_id);
  }
  return { entities, relations };
}
