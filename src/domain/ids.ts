import { monotonicFactory } from 'ulid';

/**
 * Time-sortable ids (ULID). Monotonic within one process so ids minted in the
 * same millisecond still sort in creation order; the factory is created lazily
 * so importing this module does nothing.
 */
let factory: ((seedTime?: number) => string) | undefined;

export function newId(now: number = Date.now()): string {
  factory ??= monotonicFactory();
  return factory(now);
}

const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;
export function isId(value: string): boolean {
  return ULID_RE.test(value);
}
