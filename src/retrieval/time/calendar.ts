/**
 * UTC calendar arithmetic for time expressions. Everything is whole UTC days:
 * memories carry ISO UTC valid times, so "yesterday" means the UTC day before
 * the reference date's UTC day.
 */

export const DAY_MS = 86_400_000;

export const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'] as const;
export const MONTH_ABBREVIATIONS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] as const;
/** Index 0 = Sunday, as Date.getUTCDay(). */
export const WEEKDAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

const NUMBER_WORDS: Record<string, number> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, couple: 2, 'a couple of': 2, 'a few': 3, few: 3, several: 3,
};

/** "3", "three", "a", "a couple of" -> a count; NaN when not a count. */
export function parseCount(word: string): number {
  const w = word.trim().toLowerCase();
  if (/^\d+$/.test(w)) return Number(w);
  return NUMBER_WORDS[w] ?? Number.NaN;
}

/** Month index 0..11 from a full or abbreviated English name; -1 when none. */
export function monthIndex(name: string): number {
  const n = name.toLowerCase().replace(/\.$/, '');
  const full = (MONTH_NAMES as readonly string[]).indexOf(n);
  if (full >= 0) return full;
  return n === 'sept' ? 8 : (MONTH_ABBREVIATIONS as readonly string[]).indexOf(n);
}

export function weekdayIndex(name: string): number {
  return (WEEKDAY_NAMES as readonly string[]).indexOf(name.toLowerCase());
}

/**
 * Date.UTC(year, month, day) for any year: Date.UTC reads years 0-99 as
 * 1900-1999, so "2000 years ago" (year 25) became 1925. Months and days
 * past their ends roll over as in Date.UTC; NaN past what a Date can hold.
 */
export function utc(year: number, month: number, day = 1): number {
  const d = new Date(0);
  return d.setUTCFullYear(year, month, day);
}

export function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

export function addDays(ms: number, days: number): number {
  return ms + days * DAY_MS;
}

/** Monday 00:00 UTC of the ISO week containing ms. */
export function startOfWeek(ms: number): number {
  const day = startOfDay(ms);
  const weekday = new Date(day).getUTCDay();
  return addDays(day, -((weekday + 6) % 7));
}

export function startOfMonth(ms: number): number {
  const d = new Date(ms);
  return utc(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** Adds calendar months to the first of a month (day-of-month overflow cannot happen). */
export function addMonths(monthStart: number, months: number): number {
  const d = new Date(monthStart);
  return utc(d.getUTCFullYear(), d.getUTCMonth() + months, 1);
}

export function startOfYear(ms: number): number {
  return utc(new Date(ms).getUTCFullYear(), 0, 1);
}

export function addYears(yearStart: number, years: number): number {
  return utc(new Date(yearStart).getUTCFullYear() + years, 0, 1);
}

/** A valid calendar date (rejects 31 February), as the day's start; NaN otherwise. */
export function dayOf(year: number, month: number, day: number): number {
  const ms = utc(year, month, day);
  const d = new Date(ms);
  return d.getUTCFullYear() === year && d.getUTCMonth() === month && d.getUTCDate() === day ? ms : Number.NaN;
}
