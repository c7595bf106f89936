import type { ErrorCode } from '../../domain/errors.ts';

/** The one table from MnemosError codes to HTTP status (documented in docs/SERVER.md). */
export const HTTP_STATUS: Record<ErrorCode, 400 | 401 | 403 | 404 | 409 | 410 | 413 | 500 | 501 | 503> = {
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  forgotten: 410,
  conflict: 409,
  read_only: 409,
  invalid_token: 409,
  limit_exceeded: 413,
  busy: 503,
  unavailable: 503,
  unsupported: 501,
  corrupt: 500,
  internal: 500,
};
