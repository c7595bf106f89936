import { MnemosError } from './errors.ts';

/** What an option must be; `undefined` is always allowed (the option left out). */
export type OptionKind = 'boolean' | 'number' | 'function' | 'object' | 'array';

/**
 * Checks an options object of the library (`consolidate({ force })`,
 * `embedBackfill({ retrain })`...): absent or null is none; anything but an
 * object, a key the call does not take, or a value of the wrong kind is
 * refused naming it. Read field by field, a typo was ignored
 * (`consolidate({ forse: true })` ran unforced) and a string was taken as a
 * yes (`consolidate({ force: 'no' })` forced a run, `reindexGraph({ all:
 * 'yes' })` rebuilt the graph).
 */
export function checkOptions<T extends object>(value: T | null | undefined, what: string, kinds: Readonly<Record<string, OptionKind>>): T | Record<string, never> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new MnemosError('validation_failed', `${what} must be an object of options (${Object.keys(kinds).join(', ')})`, { field: '(input)' });
  for (const [key, given] of Object.entries(value)) {
    const kind = kinds[key];
    if (kind === undefined) throw new MnemosError('validation_failed', `${what}: ${key} is not an option; it takes ${Object.keys(kinds).join(', ')}`, { field: key });
    if (given === undefined || isKind(given, kind)) continue;
    throw new MnemosError('validation_failed', `${what}: ${key} must be ${kind === 'array' || kind === 'object' ? `an ${kind}` : `a ${kind}`}, not ${describe(given)}`, { field: key });
  }
  return value;
}

function isKind(value: unknown, kind: OptionKind): boolean {
  switch (kind) {
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return typeof value === kind;
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object' || typeof value === 'function') return `a ${typeof value}`;
  return String(value);
}
