import { MnemosError } from '../domain/errors.ts';
import { exceedsChars, hasNoNul, isWellFormed, LONE_SURROGATE, NUL_CHAR } from '../domain/unicode.ts';
import { PRIORITIES, type EntryStatus, type Priority, type StatusFilter, type WriteOptions } from './blackboard-types.ts';

/** Dotted key: non-empty segments without whitespace or control characters. */
const KEY_RE = /^[^\s.\p{Cc}]+(?:\.[^\s.\p{Cc}]+)*$/u;
const MAX_KEY = 256;
/** A memory's tag limits: an entry's tags become its episode's. */
const MAX_TAGS = 64;
const MAX_TAG = 128;

/** Validates a write before anything changes; returns the options with defaults applied. */
export function checkWrite(key: string, options: WriteOptions): { priority: Priority; ttl: number | null; confidence: number } {
  if (typeof key !== 'string' || key.length === 0 || exceedsChars(key, MAX_KEY) || !KEY_RE.test(key)) {
    throw invalid('key', `invalid blackboard key ${JSON.stringify(key)}: use dotted segments (e.g. "goal.achieved"), no spaces or empty segments, at most ${MAX_KEY} characters`);
  }
  // The key and tags become an episode's text and tags, which the store refuses when they hold a broken
  // character or NUL. Accepted here, one such write failed every later SLEEP flush of the agent, all its
  // events held back with it (and a safety event came back from the durable log after each restart).
  if (!isWellFormed(key)) throw invalid('key', `blackboard key ${LONE_SURROGATE}`);
  checkTags(options.tags);
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

function checkTags(tags: unknown): void {
  if (tags === undefined) return;
  if (!Array.isArray(tags) || tags.length > MAX_TAGS) throw invalid('tags', `tags must be a list of at most ${MAX_TAGS} strings`);
  for (const t of tags) {
    // Characters as memory text counts them (code points): a tag of 128 emoji is 128 characters, not 256.
    if (typeof t !== 'string' || t.length === 0 || exceedsChars(t, MAX_TAG)) throw invalid('tags', `each tag must be a string of 1 to ${MAX_TAG} characters, got ${JSON.stringify(t)}`);
    if (!isWellFormed(t)) throw invalid('tags', `tag ${LONE_SURROGATE}`);
    if (!hasNoNul(t)) throw invalid('tags', `tag ${NUL_CHAR}`);
  }
}

function invalid(field: string, message: string): MnemosError {
  return new MnemosError('validation_failed', message, { field });
}
