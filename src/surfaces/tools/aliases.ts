import { MnemosError } from '../../domain/errors.ts';

/**
 * One value given under our name or the original tool set's
 * (shared/reference/agent-tools.md); both given and different is refused,
 * naming ours.
 */
export function eitherName<T>(ours: T | undefined, theirs: T | undefined, names: [string, string]): T | undefined {
  if (ours !== undefined && theirs !== undefined && ours !== theirs) {
    throw new MnemosError('validation_failed', `${names[0]} and ${names[1]} name the same thing: give one of them`, { field: names[0] });
  }
  return ours ?? theirs;
}
