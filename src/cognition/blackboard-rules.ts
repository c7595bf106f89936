import { MnemosError } from '../domain/errors.ts';
import { PRIORITIES, type EntryStatus, type Priority, type StatusFilter, type WriteOptions } from './blackboard-types.ts';

/** Dotted key: non-empty segments without whitespace or control characters. */
const KEY_RE = /^[^\s.\p{Cc}]+(?:\.[^\s.\p{Cc}]+)*$/u;
const MAX_KEY = 256;

/** Validates a write before anything changes; returns the options with defaults applied. */
export function checkWrite(key: string, options: WriteOptions): { priority: Priority; ttl: number | null; confidence: number } {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY || !KEY_RE.test(key)) {
    throw invalid('key', `invalid blackboard key ${JSON.stringify(key)}: use dotted segments (e.g. "goal.achieved"), no spaces or empty segments, at most ${MAX_KEY} characters`);
  }
  const priority = options.priority ?? 'normal';
  if (!PRIORITIES.includes(priority)) throw invalid('priority', `priority must be one of ${PRIORITIES.join(', ')}, got "${String(priority)}"`);
  const ttl = options.ttl ?? null;
  if (ttl !== null && !(Number.isFinite(ttl) && ttl > 0)) throw invalid('ttl', `ttl must be a positive number of seconds or omitted, got ${ttl}`);
  const confidence = options.confidence ?? 1;
  if (!(confidence >= 0 && confidence <= 1)) throw invalid('confidence', `confidence must be within 0..1, got ${confidence}`);
  return { priority, ttl, confidence };
}

export function statusTest(status: StatusFilter): (s: EntryStatus) => boolean {
  if (status === 'any') return () => true;
  if (typeof status === 'string') return (s) => s === status;
  const set = new Set<EntryStatus>(status);
  return (s) => set.has(s);
}

function invalid(field: string, message: string): MnemosError {
  return new MnemosError('validation_failed', message, { field });
}
