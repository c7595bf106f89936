import { z } from 'zod';
import { parseIso } from '../domain/time.ts';
import { isBlankText } from '../domain/unicode.ts';
import { LIFECYCLES, MEMORY_TYPES, ORIGINS, VISIBILITIES } from '../domain/memory.ts';
import { isoTime, jsonRecord, storable } from './validate.ts';

/** Input schemas of the library API. Surfaces reuse them (MCP tools, HTTP routes, OpenAPI). */

export const MAX_TEXT_CHARS = 200_000;

export const sourceRefSchema = z
  .object({
    path: z.string().min(1).optional(),
    lineStart: z.number().int().min(1).optional(),
    lineEnd: z.number().int().min(1).optional(),
    sessionId: z.string().min(1).optional(),
    turnStart: z.number().int().min(0).optional(),
    turnEnd: z.number().int().min(0).optional(),
    key: z.string().min(1).optional(),
    uri: z.string().min(1).optional(),
  })
  .strict()
  .refine((s) => s.lineStart === undefined || s.lineEnd === undefined || s.lineEnd >= s.lineStart, { message: 'lineEnd must not be before lineStart' })
  .refine((s) => s.turnStart === undefined || s.turnEnd === undefined || s.turnEnd >= s.turnStart, { message: 'turnEnd must not be before turnStart' });

const unit = z.number().min(0).max(1);

/**
 * Text of only spaces and line breaks says nothing and matches no search; "" was refused, "   " was stored.
 * Zero-width and other invisible format characters (U+200B, U+FEFF...) count as blank too: "\u200b" was stored.
 */
export const notBlank = (s: string) => !isBlankText(s);
export const BLANK = { message: 'text must not be blank (only spaces, line breaks or invisible characters such as U+200B)' };

/**
 * A session id or key of only spaces (or invisible characters) names nothing a caller could mean: it was
 * stored as a session of its own ("   " then led deep_recall's recent sessions) or a key no one would send again.
 */
export const BLANK_NAME = { message: 'must not be blank (only spaces, line breaks or invisible characters such as U+200B)' };

export const rememberSchema = z
  .object({
    text: storable(z.string().min(1, 'text must not be empty').max(MAX_TEXT_CHARS, `text is limited to ${MAX_TEXT_CHARS} characters`)).refine(notBlank, BLANK),
    type: z.enum(MEMORY_TYPES).default('general').describe('semantic type of the memory'),
    importance: unit.default(0.5).describe('base strength 0..1'),
    emotionalValence: z.number().min(-1).max(1).default(0),
    salience: unit.default(0),
    validFrom: isoTime.optional().describe('when it became true in the world (default: now)'),
    validTo: isoTime.nullable().optional(),
    origin: z.enum(ORIGINS).default('user_input'),
    source: sourceRefSchema.default({}),
    key: storable(z.string().min(1).max(512)).refine(notBlank, BLANK_NAME).optional().describe('idempotency key: the identity of the source (file+lines, session+turn, a client key)'),
    sessionId: storable(z.string().min(1).max(256)).refine(notBlank, BLANK_NAME).optional(),
    agentId: storable(z.string().min(1).max(256)).optional(),
    visibility: z.enum(VISIBILITIES).optional(),
    tags: z.array(storable(z.string().min(1).max(128))).max(64).default([]),
    labels: z.array(storable(z.string().min(1).max(64))).max(16).default([]),
    readOnly: z.boolean().default(false),
    metadata: jsonRecord.default({}),
    expiresAt: isoTime.nullable().optional(),
  })
  .strict()
  .refine((m) => !m.validTo || !m.validFrom || parseIso(m.validTo) >= parseIso(m.validFrom), { message: 'validTo must not be before validFrom', path: ['validTo'] });

export type RememberInput = z.input<typeof rememberSchema>;
export type RememberParsed = z.output<typeof rememberSchema>;

export const patchSchema = z
  .object({
    text: storable(z.string().min(1).max(MAX_TEXT_CHARS)).refine(notBlank, BLANK).optional(),
    type: z.enum(MEMORY_TYPES).optional(),
    importance: unit.optional(),
    emotionalValence: z.number().min(-1).max(1).optional(),
    validFrom: isoTime.optional(),
    validTo: isoTime.nullable().optional(),
    visibility: z.enum(VISIBILITIES).optional(),
    tags: z.array(storable(z.string().min(1).max(128))).max(64).optional(),
    metadata: jsonRecord.optional(),
    expiresAt: isoTime.nullable().optional(),
  })
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: 'nothing to change: give at least one field' });
export type MemoryPatch = z.input<typeof patchSchema>;

/**
 * An empty session, agent, tag or label is never stored (each is min(1) on
 * write), so a filter on one can only be a mistake (`--session ''`). It was
 * accepted, shown as applied in explain and then dropped as falsy: the
 * search went unfiltered. Refused instead, naming the field. A value no
 * store can hold (a NUL, half a surrogate pair) is refused the same way: it
 * matched nothing on SQLite and was a PostgreSQL error naming no field.
 */
const filterValue = (what: string) => storable(z.string().min(1, `an empty ${what} matches no memory: give one, or leave the filter out`));

/**
 * Most values one list filter (types, tags, labels, lifecycles) may name, any
 * of which a memory matches. Each value is one SQL parameter: 100,000 tags
 * overflowed the call stack building the statement (an internal error), and
 * some tens of thousands pass SQLite's 32,766 parameters a statement.
 */
export const MAX_FILTER_VALUES = 1000;

/**
 * The filter fields without the checks across them: zod 4 refuses `.pick()` on a refined object,
 * so a surface that offers some of the filters picks them here (the library checks the whole filter).
 */
export const filterFields = z
  .object({
    types: z.array(z.enum(MEMORY_TYPES)).max(MAX_FILTER_VALUES).optional(),
    tags: z.array(filterValue('tag')).max(MAX_FILTER_VALUES).optional(),
    labels: z.array(filterValue('label')).max(MAX_FILTER_VALUES).optional(),
    lifecycles: z.array(z.enum(LIFECYCLES)).max(MAX_FILTER_VALUES).optional(),
    since: isoTime.optional().describe('event time lower bound (inclusive)'),
    until: isoTime.optional().describe('event time upper bound (exclusive)'),
    recordedSince: isoTime.optional(),
    recordedUntil: isoTime.optional(),
    asOf: isoTime.optional().describe('valid-time: what was true at this time'),
    knownAt: isoTime.optional().describe('transaction time: what the store knew at this time'),
    sessionId: filterValue('session id').optional(),
    agentId: filterValue('agent id').optional(),
    minSalience: unit.optional(),
  })
  .strict();

export const filterSchema = filterFields
  // Bounds given the wrong way round select nothing, and the answer "nothing matched" read as "no such memory".
  .refine((f) => boundsInOrder(f.since, f.until), { message: 'until must not be before since (since is inclusive, until exclusive)', path: ['until'] })
  .refine((f) => boundsInOrder(f.recordedSince, f.recordedUntil), { message: 'recordedUntil must not be before recordedSince', path: ['recordedUntil'] });
export type FilterInput = z.input<typeof filterSchema>;

/** False only when both bounds are valid times and `to` is before `from` (a malformed one is reported by its own check). */
export function boundsInOrder(from: string | undefined, to: string | undefined): boolean {
  if (from === undefined || to === undefined) return true;
  const [a, b] = [parseIso(from), parseIso(to)];
  return Number.isNaN(a) || Number.isNaN(b) || b >= a;
}

/**
 * A query of only spaces or invisible characters has no words to look for: it was searched and answered
 * "nothing matched the query", which reads as "nothing is stored"; "" was already refused.
 */
export const queryText = (maxChars: number) =>
  z.string().min(1, 'query must not be empty').max(maxChars).refine(notBlank, { message: 'query must not be blank: give the words to look for' });

export const MAX_RESULTS = 200;
/** How deep a search may page: the ranking is built down to offset + limit, so a deeper page costs a deeper fusion. */
export const MAX_SEARCH_OFFSET = 10_000;

export const searchSchema = z
  .object({
    query: queryText(4000),
    limit: z.number().int().min(1).max(MAX_RESULTS).default(10),
    offset: z.number().int().min(0).max(MAX_SEARCH_OFFSET).default(0),
    minScore: z.number().min(0).optional(),
    filter: filterSchema.default({}),
    /** Reference "now" for relative time expressions in the query. */
    referenceTime: isoTime.optional(),
  })
  .strict();
export type SearchInput = z.input<typeof searchSchema>;

export const LIST_ORDERS = ['recorded_desc', 'recorded_asc', 'valid_desc', 'valid_asc', 'salience_desc'] as const;

export const listSchema = z
  .object({
    limit: z.number().int().min(1).max(1000).default(20),
    offset: z.number().int().min(0).default(0),
    order: z.enum(LIST_ORDERS).default('recorded_desc'),
    /** nextCursor of the previous page (services/list-cursor.ts). */
    cursor: z.string().min(1).max(512).optional(),
    filter: filterSchema.default({}),
  })
  .strict();
export type ListInput = z.input<typeof listSchema>;
