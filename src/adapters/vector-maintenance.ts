/**
 * The rules both SQL adapters apply to maintenance calls (VectorIndex.pruneLog
 * and dropReplacedModels, MemoryStore.pruneMemoryLog), kept in one place.
 */
import { MnemosError } from '../domain/errors.ts';
import { withArticle, type Principal } from '../domain/principal.ts';

/** The shared rule of the change logs' pruning: an owner's maintenance, keeping a whole number of entries. */
export function assertPruner(p: Principal, keep: number, log = 'vector change log'): void {
  if (p.role !== 'owner') throw new MnemosError('forbidden', `only an owner prunes the ${log}, not ${withArticle(p.role)}`);
  if (!Number.isInteger(keep) || keep < 0) throw new MnemosError('validation_failed', `keep must be a whole number >= 0, not ${keep}`, { field: 'keep' });
}

/** The shared rule of VectorIndex.dropReplacedModels: an owner's maintenance that cannot take the current model with it. */
export function assertModelDrop(p: Principal, family: string, current: string): void {
  if (p.role !== 'owner') throw new MnemosError('forbidden', `only an owner deletes the vectors of replaced models, not ${withArticle(p.role)}`);
  if (family.length === 0 || !current.startsWith(family)) {
    throw new MnemosError('validation_failed', `the current model "${current}" must belong to the family "${family}" whose older models are dropped`, { field: 'family' });
  }
}
