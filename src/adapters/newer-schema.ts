import { MnemosError } from '../domain/errors.ts';

/**
 * A store whose schema is newer than this build knows was written by a
 * newer Mnemos. Opening it anyway skipped what the newer schema keeps: an
 * older build forgot a chunk without recording its source, and the next
 * re-import by the newer build wrote the forgotten text back. Both backends
 * refuse it, before anything is read or written.
 */
export function refuseNewerSchema(found: number, latest: number, backend: string): void {
  if (found <= latest) return;
  throw new MnemosError(
    'unavailable',
    `this ${backend} store has schema version ${found}, newer than this build of mnemos knows (${latest}): a newer mnemos wrote it; upgrade mnemos to open it`,
    { schemaVersion: found, supportedSchemaVersion: latest },
  );
}
