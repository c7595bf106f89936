import { MnemosError, type ErrorCode } from '../../domain/errors.ts';

/**
 * Errors a surface wrote itself about the request it refused: a Host or
 * Origin the browser guard does not take, a malformed Authorization header,
 * a body that is not JSON, a query parameter the route does not know. Their
 * words are the request's own (what the caller sent) and the server's
 * settings, never text from the store or its driver, so store-location
 * redaction (redact-location.ts) leaves them whole. Redacting them anyway
 * turned a server reached as `db.example`, the database's host too, into a
 * hint to start it with `--allow-host [hidden]`: the caller's own Host header,
 * hidden from the caller, and the hint useless.
 *
 * Kept apart by identity, not by a field of the error: nothing a caller can
 * put into an error, and no error from below the surfaces, can claim it.
 */
const WRITTEN_BY_SURFACE = new WeakSet<MnemosError>();

/** A MnemosError about the request, made by a surface (never by a store, service or driver). */
export function requestError(code: ErrorCode, message: string, details?: Record<string, unknown>): MnemosError {
  const err = new MnemosError(code, message, details);
  WRITTEN_BY_SURFACE.add(err);
  return err;
}

/** True for an error made by requestError: its text names nothing of the store. */
export function isRequestError(err: MnemosError): boolean {
  return WRITTEN_BY_SURFACE.has(err);
}
