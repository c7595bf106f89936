import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { assertStoreLocation, isPostgresLocation, missingPgStore } from '../../adapters/open-store.ts';
import { MnemosError } from '../../domain/errors.ts';

const NOTHING = 'or add or import memories there first. Nothing was created';

/**
 * A store a command must find rather than create: a SQLite file, or a
 * PostgreSQL database whose schema holds Mnemos's tables (asked on a
 * connection that creates nothing: a typo in `?schema=` used to create an
 * empty store and report success).
 */
export async function assertStoreExists(location: string, given: string): Promise<void> {
  const field = { field: given === '--db' ? 'db' : given };
  assertStoreLocation(location, field.field);
  if (isPostgresLocation(location)) {
    const { location: shown, missing } = await missingPgStore(location);
    if (missing !== null) throw new MnemosError('not_found', `no store at ${shown} (from ${given}): ${missing}; check the URL, ${NOTHING}`, field);
    return;
  }
  if (location === ':memory:' || existsSync(location)) return;
  throw new MnemosError('not_found', `no store at ${resolve(location)} (from ${given}); check the path, ${NOTHING}`, field);
}
