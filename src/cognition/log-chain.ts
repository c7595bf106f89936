import { createHash } from 'node:crypto';

/**
 * The hash chain of the durable event log. Every record written since chains
 * were added ends in `"h":"<sha256 hex>"`, the hash of the previous line's
 * link and this line's bytes without the `h` field. Editing a line, or
 * removing or reordering lines, breaks the link of the next chained line, so
 * the log is refused on open instead of consolidating edited events.
 *
 * Lines written before chains (no `h`) are hashed into the chain as they
 * stand: the first chained line after them covers their exact bytes. They are
 * accepted only before the first chained line.
 */
export const CHAIN_START = '';

const TAIL = /,"h":"([0-9a-f]{64})"\}$/;

export function link(prev: string, body: string): string {
  return createHash('sha256').update(prev).update('\n').update(body).digest('hex');
}

/** A chained line for `body` (a JSON object), and its link. */
export function chainLine(prev: string, body: string): { line: string; head: string } {
  const head = link(prev, body);
  return { line: `${body.slice(0, -1)},"h":"${head}"}`, head };
}

/** The body a chained line was hashed over and its stored link; null for a line without one. */
export function splitChained(line: string): { body: string; h: string } | null {
  const m = TAIL.exec(line);
  if (!m) return null;
  return { body: `${line.slice(0, m.index)}}`, h: m[1]! };
}
