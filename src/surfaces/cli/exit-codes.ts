import type { ErrorCode } from '../../domain/errors.ts';

/** Stable exit codes per error code; scripts may rely on them (documented in README). */
export const EXIT_CODES: Record<ErrorCode, number> = {
  internal: 1,
  validation_failed: 2,
  not_found: 3,
  forgotten: 3,
  unauthorized: 4,
  forbidden: 4,
  conflict: 5,
  read_only: 5,
  invalid_token: 5,
  busy: 6,
  unavailable: 7,
  unsupported: 7,
  corrupt: 8,
  limit_exceeded: 2,
};
