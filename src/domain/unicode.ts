import { MnemosError } from './errors.ts';

/**
 * A JavaScript string can hold half of a UTF-16 surrogate pair, which no
 * UTF-8 database column can store: SQLite and PostgreSQL write U+FFFD in its
 * place, so the stored text would differ from the text that was hashed and
 * `audit verify` would report tampering nobody did. Such input is refused.
 */
export function isWellFormed(s: string): boolean {
  return (s as string & { isWellFormed(): boolean }).isWellFormed();
}

export const LONE_SURROGATE = 'contains half of a UTF-16 surrogate pair (a broken character), which cannot be stored as given; send valid Unicode';

/** Throws validation_failed when `value` is a string that cannot be stored as given. */
export function assertStorableText(value: string | null, field: string): void {
  if (value !== null && !isWellFormed(value)) throw new MnemosError('validation_failed', `${field} ${LONE_SURROGATE}`, { field });
}
