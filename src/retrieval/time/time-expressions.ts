import { parseIso } from '../../domain/time.ts';
/**
 * Finds time phrases in a query and turns them into a valid-time range
 * relative to a reference date, plus the query text with the phrases removed.
 *
 * Whether to cut the phrases from the text is the caller's choice (`strip`).
 * The retrieval pipeline keeps them ('none'): on LoCoMo removing absolute
 * dates changed recall by less than 0.002, relative phrases are often said
 * inside the memories themselves ("our camping trip last year"), and notes
 * that contain dates are found by them. See docs/RETRIEVAL.md.
 */
import type { TimeRange } from '../../ports/store.ts';
import { MnemosError } from '../../domain/errors.ts';
import { addDays, startOfDay } from './calendar.ts';
import { TIME_RULES, type TimeGranularity } from './time-rules.ts';

export interface TimeExpression {
  /** The phrase as written in the query, e.g. "last week". */
  phrase: string;
  /** UTF-16 offsets of the phrase in the query. */
  start: number;
  end: number;
  kind: 'absolute' | 'relative';
  granularity: TimeGranularity;
  /** Half-open valid-time range, ISO UTC: from <= t < to. */
  range: Required<TimeRange>;
}

export interface TimeQuery {
  /** The query as given. */
  original: string;
  /** The query with the removed phrases cut out and spaces collapsed. */
  text: string;
  /** Every phrase found, in query order. */
  expressions: TimeExpression[];
  /** The smallest range covering every expression; null when none. */
  range: Required<TimeRange> | null;
}

export interface TimeParseOptions {
  /** Days "recently" reaches back. Default 30. */
  recentDays?: number;
  /** Which phrases to cut from the text. Default 'none'. */
  strip?: 'all' | 'absolute' | 'none';
}

function toMs(reference: string | Date): number {
  const ms = typeof reference === 'string' ? parseIso(reference) : reference.getTime();
  if (Number.isNaN(ms)) throw new MnemosError('validation_failed', `reference date is not a valid time: ${String(reference)}`, { field: 'referenceDate' });
  return ms;
}

/**
 * The span a time phrase may name: ISO-8601's four-digit years, 0000 to 9999.
 * "tea 300000000 days ago" resolved past what a Date can hold (±8.64e15 ms)
 * and toISOString threw "Invalid time value": an internal error, HTTP 500,
 * for a query any guest may send. A phrase outside the span is no date
 * anyone means; it is not taken as a time phrase (the range is only a
 * ranking boost), and the query is searched as text.
 */
const EARLIEST_MS = Date.parse('0000-01-01T00:00:00Z');
const LATEST_MS = Date.parse('+010000-01-01T00:00:00Z');

export function parseTimeQuery(query: string, referenceDate: string | Date, options: TimeParseOptions = {}): TimeQuery {
  const ref = toMs(referenceDate);
  const recentDays = options.recentDays ?? 30;
  const strip = options.strip ?? 'none';
  const found: TimeExpression[] = [];
  for (const rule of TIME_RULES) {
    rule.pattern.lastIndex = 0;
    for (const m of query.matchAll(rule.pattern)) {
      const resolved = rule.resolve(m as RegExpExecArray, ref, { recentDays });
      if (!resolved || !(resolved.to > resolved.from)) continue;
      let { from, to } = resolved;
      // "since May 2023": from the phrase's start up to the end of the reference day.
      if (/^since\b/i.test(m[0])) to = Math.max(to, addDays(startOfDay(ref), 1));
      if (!(from >= EARLIEST_MS && to <= LATEST_MS)) continue;
      const start = m.index ?? 0;
      found.push({
        phrase: m[0],
        start,
        end: start + m[0].length,
        kind: rule.kind,
        granularity: resolved.granularity,
        range: { from: new Date(from).toISOString(), to: new Date(to).toISOString() },
      });
    }
  }
  // Longest phrase wins where phrases overlap ("8 May 2023" over "May 2023" over "2023").
  found.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const chosen: TimeExpression[] = [];
  for (const e of found) if (chosen.every((c) => e.end <= c.start || e.start >= c.end)) chosen.push(e);
  chosen.sort((a, b) => a.start - b.start);

  let text = '';
  let at = 0;
  for (const e of chosen) {
    if (strip === 'all' || (strip === 'absolute' && e.kind === 'absolute')) {
      text += query.slice(at, e.start);
      at = e.end;
    }
  }
  text = (text + query.slice(at)).replace(/\s+([,.?!;:])/g, '$1').replace(/,(?=[?.!]|$)/g, '').replace(/\s{2,}/g, ' ').trim();

  const range = chosen.length === 0
    ? null
    : {
        from: chosen.map((e) => e.range.from).reduce((a, b) => (a < b ? a : b)),
        to: chosen.map((e) => e.range.to).reduce((a, b) => (a > b ? a : b)),
      };
  return { original: query, text, expressions: chosen, range };
}
