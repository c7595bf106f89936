import { createHash } from 'node:crypto';
import { MnemosError } from '../domain/errors.ts';
import type { Memory } from '../domain/memory.ts';
import { toMs } from '../domain/time.ts';
import type { KeysetOrder, MemoryFilter } from '../ports/store.ts';

/**
 * The cursor of a list page: where the page ended, in the list's order, plus a
 * fingerprint of the order and filters it was made for. Paging by offset skips
 * or repeats memories when some are stored between two pages (a new memory at
 * the head of `recorded_desc` pushes every later one down a place); a position
 * does not move. Opaque to callers: base64url of a small JSON object.
 */
interface CursorBody {
  v: 1;
  at: number;
  id: string;
  f: string;
}

const KEYSET_ORDERS: readonly string[] = ['recorded_desc', 'recorded_asc', 'valid_desc', 'valid_asc'] satisfies KeysetOrder[];

export function isKeysetOrder(order: string): order is KeysetOrder {
  return KEYSET_ORDERS.includes(order);
}

/** Order and filters, normalised, hashed: a cursor used with others would page through a different list. */
function fingerprint(order: string, filter: MemoryFilter): string {
  const norm = (v: unknown): unknown =>
    Array.isArray(v) ? [...v].map(norm).sort() : v !== null && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, norm((v as Record<string, unknown>)[k])])) : v;
  return createHash('sha256').update(JSON.stringify([order, norm(filter)])).digest('base64url').slice(0, 16);
}

export function encodeListCursor(order: KeysetOrder, filter: MemoryFilter, last: Memory): string {
  const at = toMs(order.startsWith('recorded') ? last.recordedAt : last.validFrom);
  const body: CursorBody = { v: 1, at, id: last.id, f: fingerprint(order, filter) };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** The position a cursor holds, as a store filter; 400 naming `cursor` when it is not one of ours or was made for another listing. */
export function decodeListCursor(cursor: string, order: string, filter: MemoryFilter): NonNullable<MemoryFilter['listAfter']> {
  if (!isKeysetOrder(order)) {
    throw new MnemosError('validation_failed', `order ${order} pages by offset only (salience changes as memories are recalled, so a position in it does not hold); leave cursor out`, { field: 'cursor' });
  }
  const bad = () => new MnemosError('validation_failed', 'cursor is not one this server gave: pass nextCursor from the previous page unchanged', { field: 'cursor' });
  let body: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const b = body as Partial<CursorBody>;
  if (typeof body !== 'object' || body === null || b.v !== 1 || !Number.isSafeInteger(b.at) || typeof b.id !== 'string' || b.id.length === 0 || b.id.length > 64 || typeof b.f !== 'string') throw bad();
  if (b.f !== fingerprint(order, filter)) {
    throw new MnemosError('validation_failed', 'cursor was made for another order or other filters: repeat the first request\'s order and filters unchanged with it', { field: 'cursor' });
  }
  return { order, at: b.at!, id: b.id };
}
