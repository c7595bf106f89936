import { MnemosError } from '../../domain/errors.ts';
import { charCount } from '../../domain/unicode.ts';

/**
 * Joins whole units (atom lines or whole records) under a character budget
 * (characters as domain/unicode.ts charCount counts them: code points).
 * Each unit is newline-terminated; the join stops before the first unit
 * that would pass the budget, so output never ends in half an atom. No
 * budget means no bound.
 */
/** A view's text, how many of its units (records or lines) it holds, and whether the budget left some out. */
export interface BoundedText {
  text: string;
  included: number;
  truncated: boolean;
}

export function joinBounded(units: Iterable<string>, maxChars?: number): BoundedText {
  checkBudget(maxChars);
  let text = '';
  let used = 0;
  let included = 0;
  for (const unit of units) {
    const piece = unit.endsWith('\n') ? unit : unit + '\n';
    const chars = maxChars === undefined ? 0 : charCount(piece);
    if (maxChars !== undefined && used + chars > maxChars) return { text, included, truncated: true };
    text += piece;
    used += chars;
    included++;
  }
  return { text, included, truncated: false };
}

export function checkBudget(maxChars: number | undefined, name = 'maxChars'): void {
  if (maxChars === undefined) return;
  if (!Number.isInteger(maxChars) || maxChars < 0) {
    throw new MnemosError('validation_failed', `${name} must be a non-negative integer, got ${maxChars}`, { [name]: maxChars });
  }
}
