import { MnemosError } from '../domain/errors.ts';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/**
 * Parses LoCoMo's session dates, e.g. "1:56 pm on 8 May, 2023", to ISO UTC.
 * The dataset gives no time zone; UTC keeps the calendar day as written.
 */
export function parseLocomoDate(text: string): string {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})\s*$/i.exec(text);
  const month = m ? MONTHS.indexOf(m[5]!.toLowerCase()) : -1;
  if (!m || month < 0) throw new MnemosError('validation_failed', `unrecognised LoCoMo date "${text}"`, { text });
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === 'pm') hour += 12;
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}
