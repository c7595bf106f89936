import { MnemosError } from './errors.ts';

/** A date with a time of day and no zone: `2024-06-01T12:00:00`, `2024-06-01 12:00`. */
const ZONELESS_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;

/**
 * Date.parse, with a time that names no zone read as UTC, as a date alone is.
 * Date.parse reads it in the machine's zone, so one command stored different
 * instants on a server in Tokyo and one in London.
 */
export function parseIso(iso: string): number {
  return Date.parse(ZONELESS_TIME.test(iso) ? `${iso.replace(' ', 'T')}Z` : iso);
}

/** Times travel as ISO-8601 strings (UTC, millisecond precision); stores keep epoch milliseconds. */
export function toMs(iso: string): number {
  const ms = parseIso(iso);
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
