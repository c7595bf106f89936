/**
 * The named salience levels of journal records (metta-journal.md: critical
 * 40, high 30, medium 20, low 10 points, or a number x 40). A memory's
 * salience is 0..1, so a level reads as its points over 40.
 */
export const SALIENCE_POINTS: Readonly<Record<string, number>> = { critical: 40, high: 30, medium: 20, low: 10 };

/** A level's salience (0..1), case-insensitive; undefined for a word that names no level. */
export function namedSalience(name: string): number | undefined {
  const points = SALIENCE_POINTS[name.toLowerCase()];
  return points === undefined ? undefined : points / 40;
}
