import { MnemosError } from '../../domain/errors.ts';

/**
 * A guest or agent may not write under a source identity (a session turn, a
 * file chunk) that another principal already holds: that would put a second
 * text under someone else's turn or chunk. The error names the key only,
 * never its content; it does tell the caller that the key is taken, as a
 * taken user name would. Turns a writer adds under new numbers carry its id
 * (recall-range.ts, writerOf).
 */
export function sourceHeldByOther(sourceKey: string): MnemosError {
  return new MnemosError('forbidden', `source "${sourceKey}" belongs to another principal; use a key (session, file or client key) of your own`, { field: 'key' });
}

/** A lifecycle move computed from an importance that another write has changed since: the caller reads again. */
export function importanceMoved(id: string): MnemosError {
  return new MnemosError('conflict', `memory ${id} changed strength since it was read; read it again`, { id });
}
