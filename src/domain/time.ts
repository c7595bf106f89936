import { MnemosError } from './errors.ts';

/**
 * The ISO-8601 shapes inputs may take (services/validate.ts checks them against
 * the same pattern): a date, optionally a time of day, optionally a zone.
 */
const ISO_PARTS = /^(\d{4}-\d{2}-\d{2})(?:[Tt ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Date.parse, with every shape the input pattern admits read the same way:
 * a time that names no zone is UTC, as a date alone is (Date.parse read it in
 * the machine's zone, so one command stored different instants on a server in
 * Tokyo and one in London), and a zone of hours alone (`+05`) or a date with
 * a zone (`2026-05-01+05:00`, midnight there), both ISO-8601 and accepted by
 * the pattern the OpenAPI document and MCP schemas publish, are read rather
 * than refused as "not ISO-8601". Other strings (a stored `+010000-...`) go
 * to Date.parse as they are.
 */
export function parseIso(iso: string): number {
  const m = ISO_PARTS.exec(iso);
  if (!m) return Date.parse(iso);
  const [, date, time = '00:00', zone = 'Z'] = m;
  const offset = zone === 'z' ? 'Z' : zone.length === 3 ? `${zone}:00` : zone;
  return Date.parse(`${date}T${time}${offset}`);
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
