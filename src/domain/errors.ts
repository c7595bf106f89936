/**
 * The one error type of Mnemos. Every failure that a caller can act on carries a
 * stable `code`; surfaces map codes to their own form (HTTP status, MCP error,
 * CLI exit code) in one table each, so the wording can change without breaking
 * scripts that branch on the code.
 */
export const ERROR_CODES = [
  'validation_failed', // input did not pass its schema; details name the field
  'not_found',
  'forgotten', // the id existed and was forgotten; its tombstone is in the audit log
  'unauthorized', // no or unknown credentials
  'forbidden', // credentials valid, but the principal may not do this
  'conflict', // an idempotency key was reused with different content, or a stale version
  'read_only', // e.g. safety-audit episodes, which may never change
  'invalid_token', // a preview/confirm token that is unknown, used or expired
  'busy', // the store stayed locked after retries
  'unavailable', // an optional provider or backend is not configured or not installed
  'unsupported', // the backend lacks a capability the call needs
  'corrupt', // stored data failed an integrity check (e.g. the audit chain)
  'limit_exceeded', // a request exceeded a size or count limit
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Marker so `MnemosError.is` works across duplicated copies of this module. */
const MARKER = Symbol.for('mnemos.error');

export class MnemosError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly [MARKER] = true;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MnemosError';
    this.code = code;
    this.details = details;
  }

  static is(value: unknown, code?: ErrorCode): value is MnemosError {
    const ok = typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
    return ok && (code === undefined || (value as MnemosError).code === code);
  }

  toJSON(): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details ? { code: this.code, message: this.message, details: this.details } : { code: this.code, message: this.message };
  }
}

/** Wrap anything thrown into a MnemosError without losing the original. */
export function toMnemosError(err: unknown): MnemosError {
  if (MnemosError.is(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new MnemosError('internal', message, undefined, { cause: err });
}
