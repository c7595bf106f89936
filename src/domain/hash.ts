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
  const keys = sortedKeys(obj);
  let out = '{';
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const v = write(obj[key], false);
    if (v === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${v}`;
    first = false;
  }
  return `${out}}`;
}

/**
 * Own enumerable keys in the order Array.prototype.sort gives strings (UTF-16
 * code units). The small objects of audit entries are sorted in place by
 * insertion: the built-in sort allocates work space on every call, which was
 * a tenth of what a SLEEP flush allocated.
 */
function sortedKeys(obj: object): string[] {
  const keys = Object.keys(obj);
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > k) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
}
