/**
 * How many ranked candidates to check against the store's scope-and-filter
 * SQL when a search ranks everything first and checks scope after (the
 * vector scan without a current admitted set, the approximate index's
 * second round, the keyword copy, FTS5's head): enough that an owner, who
 * reads nearly every row, is answered by the first check.
 */
export function firstCandidates(limit: number): number {
  return Math.ceil(1.25 * limit) + 10;
}

/** Candidates needed for `limit` admitted ones at the survival rate a round saw (`admitted` of `checked`), with a margin; Infinity when none survived. */
export function candidatesNeeded(limit: number, checked: number, admitted: number): number {
  return admitted === 0 ? Infinity : Math.ceil((1.5 * limit * checked) / admitted);
}
