import { MnemosError } from './errors.ts';

/** Times travel as ISO-8601 strings (UTC, millisecond precision); stores keep epoch milliseconds. */
export function toMs(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new MnemosError('validation_failed', `not a valid ISO-8601 time: "${iso}"`);
  return ms;
}

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

export function toMsOrNull(iso: string | null | undefined): number | null {
  return iso === null || iso === undefined ? null : toMs(iso);
}

export function toIsoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : toIso(ms);
}

/** Normalises any accepted time string to canonical ISO (UTC, ms). */
export function normalizeIso(iso: string): string {
  return toIso(toMs(iso));
}
