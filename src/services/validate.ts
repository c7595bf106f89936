import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import { parseIso } from '../domain/time.ts';
import { assertStorableText, hasNoNul, isWellFormed, LONE_SURROGATE, NUL_CHAR } from '../domain/unicode.ts';
import { freezeJson } from '../cognition/json.ts';

/**
 * Parses input against a schema and turns the first problems into one clear
 * MnemosError that names the fields, so every surface reports bad input the
 * same way and nothing is written.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({ field: issueField(i), message: i.message }));
  const summary = issues
    .slice(0, 3)
    .map((i) => `${i.field}: ${i.message}`)
    .join('; ');
  throw new MnemosError('validation_failed', `invalid ${what}: ${summary}${issues.length > 3 ? ` (and ${issues.length - 3} more)` : ''}`, {
    field: issues[0]?.field,
    issues,
  });
}

/**
 * The field an issue is about. An unknown key is named itself: `details.field`
 * said "(input)" for `{"query": "x", "limt": 5}`, so a client could not tell
 * which of its fields to fix without parsing the message.
 */
function issueField(i: z.core.$ZodIssue): string {
  const path = i.code === 'unrecognized_keys' && i.keys.length > 0 ? [...i.path, i.keys[0]!] : i.path;
  return path.length ? path.join('.') : '(input)';
}

/**
 * ISO-8601 as the docs promise: a date, optionally a time and a zone. Date.parse
 * alone also took "1" (2001-01-01) and "June 5" (a day of 2001).
 */
const ISO_SHAPE = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

const ISO_MESSAGE = 'must be an ISO-8601 time such as 2026-05-01T12:00:00Z (a time without a zone is UTC)';

// The shape is a regex check so that the JSON Schema (OpenAPI, MCP) carries it as `pattern`: a client
// validating against the document accepted "yesterday", which the server then refused.
export const isoTime = z
  .string()
  .regex(ISO_SHAPE, { message: ISO_MESSAGE })
  .refine((s) => !ISO_SHAPE.test(s) || !Number.isNaN(parseIso(s)), { message: ISO_MESSAGE })
  // Only of a time that reads: "2024-13-01" was told both that it is no ISO time and that its month lacks the day.
  .refine((s) => Number.isNaN(parseIso(s)) || calendarDayExists(s), { message: 'names a day its month does not have' });

/**
 * Date.parse rolls 2024-02-30 over to March 1st; a date the caller could not
 * have meant is refused rather than stored as another day.
 */
function calendarDayExists(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (!m) return true;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999, so 0000-02-29 (a leap day of the
  // proleptic Gregorian calendar that ISO-8601 and toISOString use) was measured against 1900 and refused.
  const lastDay = new Date(0);
  lastDay.setUTCFullYear(year, month, 0);
  return month >= 1 && month <= 12 && day >= 1 && day <= lastDay.getUTCDate();
}

/** A string schema that refuses what a database text column cannot store as given (domain/unicode.ts). */
export function storable(s: z.ZodString): z.ZodString {
  return s.refine(isWellFormed, { message: LONE_SURROGATE }).refine(hasNoNul, { message: NUL_CHAR });
}

/**
 * A memory id a caller gave (get, history, update, forget, and the tools and
 * routes over them), checked before any store reads it. An id no store can
 * hold answered differently per backend: SQLite found nothing (not_found) and
 * PostgreSQL failed on the NUL (a raw 22021 naming no field).
 */
export function assertMemoryId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || id.length === 0) throw new MnemosError('validation_failed', 'id must be a non-empty string: a memory id from add, search or list', { field: 'id' });
  assertStorableText(id, 'id');
}

/**
 * Free-form JSON a memory stores (metadata): plain JSON only, nested at most
 * 64 levels. Without the check a cycle or a BigInt threw a raw TypeError and
 * deep nesting overflowed the stack of the row's JSON.stringify.
 */
export const jsonRecord = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  try {
    freezeJson(value, 'metadata');
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
  }
});
