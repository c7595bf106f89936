import { hash } from 'node:crypto';

/** One-shot SHA-256 (crypto.hash): several times cheaper than a Hash object for the small inputs hashed on every write. */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/**
 * Content hash used for exact-duplicate detection. Only the text is hashed,
 * byte for byte: two memories with the same text have the same hash, but the
 * store never merges on it (idempotency comes from the source identity).
 */
export function contentHash(text: string): string {
  return sha256Hex(text);
}

/**
 * JSON with sorted keys, so a hash over it does not depend on key order.
 * Exactly JSON.stringify's output for the key-sorted value (toJSON honoured,
 * undefined and functions dropped from objects and null in arrays,
 * non-finite numbers as null), written in one pass: every audit entry is
 * hashed over this, so it sits on the write path.
 */
export function canonicalJson(value: unknown): string {
  return write(value, false) ?? 'undefined';
}

function write(value: unknown, inArray: boolean): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') value = (value as { toJSON: () => unknown }).toJSON();
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(value); // throws, as JSON.stringify does
    case 'undefined':
    case 'function':
    case 'symbol':
      return inArray ? 'null' : undefined;
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + write(value[i], true);
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const key of Object.keys(obj).sort()) {
    const v = write(obj[key], false);
    if (v === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${v}`;
    first = false;
  }
  return `${out}}`;
}
