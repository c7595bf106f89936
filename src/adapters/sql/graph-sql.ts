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
