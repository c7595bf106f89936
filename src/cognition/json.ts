import { MnemosError } from '../domain/errors.ts';

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * Validates that `value` is plain JSON and returns a deep-frozen copy.
 *
 * Blackboard values are copied once on write and frozen, so every later reader
 * (queries, the consolidator's value snapshot, episodes) can share them without
 * copying and no caller can change history by mutating an object it wrote.
 */
export function freezeJson(value: unknown, what = 'value'): JsonValue {
  return copy(value, what, new Set(), 0);
}

/**
 * How deep a value may nest. Each level is a frame of this copy and of every
 * later JSON.stringify, and thousands of levels overflow the stack: that
 * reached callers as an internal error instead of a refusal.
 */
export const MAX_JSON_DEPTH = 64;

function copy(value: unknown, path: string, seen: Set<object>, depth: number): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw notJson(path, `${value} is not a finite number`);
    return value;
  }
  if (typeof value !== 'object') throw notJson(path, `a ${typeof value} is not JSON`);
  if (seen.has(value)) throw notJson(path, 'it contains a cycle');
  if (depth >= MAX_JSON_DEPTH) throw notJson(path, `it nests deeper than ${MAX_JSON_DEPTH} levels`);
  seen.add(value);
  let out: JsonValue;
  if (Array.isArray(value)) {
    out = Object.freeze(value.map((item, i) => copy(item, `${path}[${i}]`, seen, depth + 1)));
  } else {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw notJson(path, `a ${value.constructor?.name ?? 'non-plain'} object is not JSON; convert it (e.g. a Date to an ISO string)`);
    }
    const obj: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value)) {
      // JSON.stringify drops undefined members; do the same instead of failing.
      if (v !== undefined) obj[k] = copy(v, `${path}.${k}`, seen, depth + 1);
    }
    out = Object.freeze(obj);
  }
  seen.delete(value);
  return out;
}

function notJson(path: string, why: string): MnemosError {
  return new MnemosError('validation_failed', `${path} must be JSON: ${why}`, { field: path });
}
