import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { isPostgresLocation } from '../../adapters/open-store.ts';
import { MnemosError } from '../../domain/errors.ts';
/** A SQLite file a command must find rather than create (PostgreSQL URLs are the server's business). */
export function assertStoreExists(location: string, given: string): void {
  if (isPostgresLocation(location) || location === ':memory:' || existsSync(location)) return;
  throw new MnemosError('not_found', `no store at ${resolve(location)} (from ${given}); check the path, or add or import memories there first. Nothing was created`, { field: given === '--db' ? 'db' : given });
}
