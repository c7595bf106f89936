/**
 * Reconsolidation (seed 002): a recalled memory is labile for a window; a
 * correction inside it updates the memory in place (a new version), one
 * after it is stored as a new memory that supersedes the old one. The last
 * recall is the memory's lastAccessedAt, so no extra state is needed.
 */
export function isLabile(lastAccessedAt: string | null, now: number, windowMs: number): boolean {
  if (lastAccessedAt === null) return false;
  const since = now - Date.parse(lastAccessedAt);
  return since >= 0 && since <= windowMs;
}
