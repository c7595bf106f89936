/** Request limits of the HTTP surface. Per-field caps (maxResults, maxChars) live in the tool schemas. */
export interface HttpLimits {
  /** Largest accepted request body. */
  maxBodyBytes: number;
  /** Most memories in one POST /v1/memories batch. */
  maxBatch: number;
}

export const DEFAULT_LIMITS: HttpLimits = { maxBodyBytes: 4 * 1024 * 1024, maxBatch: 1000 };
