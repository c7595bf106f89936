/**
 * The English time phrases we recognise, each a regular expression plus a
 * resolver to a half-open UTC range [from, to) relative to a reference time.
 * Conventions (documented in docs/RETRIEVAL.md):
 * - "last X" is the previous calendar X (week = ISO week, Monday first);
 *   "past N X" / "in the last N X" is a trailing span ending with today;
 * - "N X ago" is the calendar X that contains (reference − N X);
 * - a date without a year is its latest occurrence on or before the reference;
 * - seasons are northern-hemisphere meteorological (winter YEAR = Dec YEAR..Feb);
 * - "recently"/"lately" is the trailing `recentDays` (default 30);
 * - a bare month needs a preposition ("in May"), and "May" must be capitalised,
 *   so the modal verb "may" is never a date.
 */
import {
  addDays, addMonths, addYears, DAY_MS, dayOf, monthIndex, parseCount, startOfDay, startOfMonth, startOfWeek, startOfYear, utc, weekdayIndex,
} from './calendar.ts';

export type TimeGranularity = 'day' | 'week' | 'month' | 'season' | 'year' | 'span';

export interface ResolvedRange {
  from: number;
  to: number;
  granularity: TimeGranularity;
}

export interface TimeRule {
  kind: 'absolute' | 'relative';
  pattern: RegExp;
  resolve(m: RegExpExecArray, ref: number, options: { recentDays: number }): ResolvedRange | null;
}

const MONTH_FULL = '(january|february|march|april|may|june|july|august|september|october|november|december)';
const MONTH_ANY = '(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\\.?';
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
const YEAR = '((?:19|20)\\d{2})';
const WEEKDAY = '(sunday|monday|tuesday|wednesday|thursday|friday|saturday)';
const UNIT = '(day|week|month|year)s?';
const COUNT = '(\\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|couple of|a few|few|several)';

const day = (ms: number): ResolvedRange | null => (Number.isNaN(ms) ? null : { from: ms, to: addDays(ms, 1), granularity: 'day' });
const month = (year: number, m: number): ResolvedRange => ({ from: utc(year, m, 1), to: utc(year, m + 1, 1), granularity: 'month' });

/** Start of the calendar unit containing ms, and the unit after it. */
function unitStart(unit: string, ms: number): number {
  if (unit === 'day') return startOfDay(ms);
  if (unit === 'week') return startOfWeek(ms);
  if (unit === 'month') return startOfMonth(ms);
  return startOfYear(ms);
}

function shiftUnit(unit: string, start: number, n: number): number {
  if (unit === 'day') return addDays(start, n);
  if (unit === 'week') return addDays(start, 7 * n);
  if (unit === 'month') return addMonths(start, n);
  return addYears(start, n);
}

function calendarUnit(unit: string, ref: number, shift: number): ResolvedRange {
  const start = shiftUnit(unit, unitStart(unit, ref), shift);
  return { from: start, to: shiftUnit(unit, start, 1), granularity: unit as TimeGranularity };
}

/** Latest occurrence of month/day on or before the reference day. */
function latestDay(m: number, d: number, ref: number): number {
  const year = new Date(ref).getUTCFullYear();
  const candidate = dayOf(year, m, d);
  return candidate > startOfDay(ref) ? dayOf(year - 1, m, d) : candidate;
}

const SEASON_MONTHS: Record<string, number> = { spring: 2, summer: 5, fall: 8, autumn: 8, winter: 11 };

export const TIME_RULES: readonly TimeRule[] = [
  { kind: 'absolute', pattern: /\b(?:on\s+)?(\d{4})-(\d{2})-(\d{2})\b/gi, resolve: (m) => day(dayOf(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) },
  {
    kind: 'absolute',
    pattern: new RegExp(`\\b(?:on\\s+)?(?:the\\s+)?${DAY}\\s+(?:of\\s+)?${MONTH_ANY},?\\s+${YEAR}\\b`, 'gi'),
    resolve: (m) => day(dayOf(Number(m[3]), monthIndex(m[2]!), Number(m[1]))),
  },
  {
    kind: 'absolute',
    pattern: new RegExp(`\\b(?:on\\s+)?${MONTH_ANY}\\s+${DAY},?\\s+${YEAR}\\b`, 'gi'),
    resolve: (m) => day(dayOf(Number(m[3]), monthIndex(m[1]!), Number(m[2]))),
  },
  {
    kind: 'absolute',
    pattern: new RegExp(`\\b(?:(?:in|during|since)\\s+)?(?:(?:early|mid|late)[-\\s]+)?${MONTH_ANY}(?:\\s+of)?,?\\s+${YEAR}\\b`, 'gi'),
    resolve: (m) => month(Number(m[2]), monthIndex(m[1]!)),
  },
  {
    kind: 'absolute',
    pattern: new RegExp(`\\b(?:in\\s+|during\\s+)?(?:the\\s+)?(spring|summer|fall|autumn|winter)\\s+(?:of\\s+)?${YEAR}\\b`, 'gi'),
    resolve: (m) => {
      const from = utc(Number(m[2]), SEASON_MONTHS[m[1]!.toLowerCase()]!, 1);
      return { from, to: addMonths(from, 3), granularity: 'season' };
    },
  },
  {
    kind: 'absolute',
    pattern: new RegExp(`\\b(?:on\\s+)?(?:the\\s+)?${DAY}\\s+(?:of\\s+)?${MONTH_FULL}\\b|\\b(?:on\\s+)?${MONTH_FULL}\\s+${DAY}\\b(?!,?\\s*\\d)`, 'gi'),
    resolve: (m, ref) => {
      // "may 3" could be the verb; "3 may" and "May 3" are dates.
      if (m[3] === 'may') return null;
      return day(latestDay(monthIndex((m[2] ?? m[3])!), Number(m[1] ?? m[4]), ref));
    },
  },
  {
    kind: 'absolute',
    pattern: new RegExp(`\\b(in|during|since|last|this|early|late)\\s+(?:(?:early|mid|late)[-\\s]+)?${MONTH_FULL}\\b(?!\\s*\\d)`, 'gi'),
    resolve: (m, ref) => {
      if (m[2] === 'may') return null;
      const target = monthIndex(m[2]!);
      const refDate = new Date(ref);
      const prep = m[1]!.toLowerCase();
      let year = refDate.getUTCFullYear();
      if (prep === 'last' ? target >= refDate.getUTCMonth() : prep !== 'this' && target > refDate.getUTCMonth()) year--;
      return month(year, target);
    },
  },
  {
    kind: 'absolute',
    pattern: new RegExp(`\\b(?:(?:in|during|since)\\s+)?${YEAR}\\b(?![-/.:]\\d)`, 'gi'),
    resolve: (m) => ({ from: utc(Number(m[1]), 0, 1), to: utc(Number(m[1]) + 1, 0, 1), granularity: 'year' }),
  },
  { kind: 'relative', pattern: /\b(?:the\s+)?day\s+before\s+yesterday\b/gi, resolve: (_m, ref) => day(addDays(startOfDay(ref), -2)) },
  { kind: 'relative', pattern: /\byesterday(?:\s+(?:morning|afternoon|evening|night))?\b|\blast\s+night\b/gi, resolve: (_m, ref) => day(addDays(startOfDay(ref), -1)) },
  { kind: 'relative', pattern: /\btoday\b|\btonight\b|\bthis\s+(?:morning|afternoon|evening)\b/gi, resolve: (_m, ref) => day(startOfDay(ref)) },
  {
    kind: 'relative',
    pattern: new RegExp(`\\b${COUNT}\\s+${UNIT}\\s+ago\\b`, 'gi'),
    resolve: (m, ref) => {
      const n = parseCount(m[1]!);
      return Number.isNaN(n) ? null : calendarUnit(m[2]!.toLowerCase(), ref, -n);
    },
  },
  {
    kind: 'relative',
    pattern: new RegExp(`\\b(?:(?:in|over|during|within)\\s+)?the\\s+(?:last|past)\\s+(?:${COUNT}\\s+)?${UNIT}\\b|\\b(?:last|past)\\s+${COUNT}\\s+${UNIT}\\b`, 'gi'),
    resolve: (m, ref) => {
      const n = m[1] ?? m[3] ? parseCount((m[1] ?? m[3])!) : 1;
      const unit = (m[2] ?? m[4])!.toLowerCase();
      if (Number.isNaN(n)) return null;
      const to = addDays(startOfDay(ref), 1);
      return { from: unit === 'month' ? addMonths(startOfDay(ref), -n) : unit === 'year' ? addYears(startOfDay(ref), -n) : addDays(to, -(unit === 'week' ? 7 : 1) * n), to, granularity: 'span' };
    },
  },
  {
    kind: 'relative',
    pattern: /\b(last|previous|this|earlier\s+this)\s+(week|month|year)\b/gi,
    resolve: (m, ref) => {
      const which = m[1]!.toLowerCase().replace(/\s+/g, ' ');
      const unit = m[2]!.toLowerCase();
      if (which === 'earlier this') return { from: unitStart(unit, ref), to: startOfDay(ref) + DAY_MS, granularity: 'span' };
      return calendarUnit(unit, ref, which === 'this' ? 0 : -1);
    },
  },
  {
    kind: 'relative',
    pattern: /\b(last|this|past|the)\s+weekend\b/gi,
    resolve: (m, ref) => {
      const monday = startOfWeek(ref);
      const saturday = m[1]!.toLowerCase() === 'this' ? addDays(monday, 5) : addDays(monday, -2);
      return { from: saturday, to: addDays(saturday, 2), granularity: 'span' };
    },
  },
  {
    kind: 'relative',
    pattern: new RegExp(`\\b(?:(last|this|on|past)\\s+)?${WEEKDAY}\\b`, 'gi'),
    resolve: (m, ref) => {
      const target = weekdayIndex(m[2]!);
      const today = startOfDay(ref);
      const which = (m[1] ?? '').toLowerCase();
      if (which === 'this') return day(addDays(startOfWeek(ref), (target + 6) % 7));
      const back = (new Date(today).getUTCDay() - target + 7) % 7;
      return day(addDays(today, -(back === 0 && (which === 'last' || which === 'past') ? 7 : back)));
    },
  },
  {
    kind: 'relative',
    pattern: /\b(?:recently|lately|of\s+late|these\s+days|the\s+other\s+day)\b/gi,
    resolve: (_m, ref, o) => ({ from: addDays(startOfDay(ref), -o.recentDays), to: addDays(startOfDay(ref), 1), granularity: 'span' }),
  },
];
