import { MnemosError } from '../domain/errors.ts';
import type { Memory } from '../domain/memory.ts';

/**
 * One batch (a request's memories, one file's lines) naming one key twice
 * with two texts: the store answered with a conflict naming a memory the
 * rolled-back batch never kept, or, under supersede, kept only the later
 * text as "updated". Refused before anything is written, naming both places.
 * The same text twice is harmless: the second is `unchanged`.
 */
export function assertDistinctKeys(memories: readonly Pick<Memory, 'sourceKey' | 'contentHash' | 'ownerId' | 'supersededAt'>[], where: (index: number) => string): void {
  const seen = new Map<string, { hash: string; index: number }>();
  memories.forEach((m, index) => {
    // An export's superseded versions share their key with the current one, as in the store.
    if (m.sourceKey === null || m.supersededAt !== null) return;
    const id = `${m.ownerId}\u0000${m.sourceKey}`;
    const first = seen.get(id);
    if (!first) return void seen.set(id, { hash: m.contentHash, index });
    if (first.hash !== m.contentHash) {
      throw new MnemosError('validation_failed', `${where(index)} gives key "${m.sourceKey}" a different text than ${where(first.index)}; a key names one memory, so give each its own key`, {
        field: 'key',
        sourceKey: m.sourceKey,
      });
    }
  });
}
