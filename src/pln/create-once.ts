import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { MnemosError } from '../domain/errors.ts';
import { fsyncDir } from '../journal/journal-io.ts';

/**
 * Writes a file that must never be replaced: O_EXCL create, write, fsync.
 * An existing file is a `conflict`, so a record once written stays the record.
 */
export function writeCreateOnce(path: string, content: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o444);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new MnemosError('conflict', `${path} already exists and records are create-once; write to a new path`, { path });
    throw new MnemosError('unavailable', `cannot create ${path}: ${(err as Error).message}`, { path }, { cause: err });
  }
  try {
    const data = Buffer.from(content, 'utf8');
    let done = 0;
    while (done < data.length) done += writeSync(fd, data, done, data.length - done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  fsyncDir(dirname(path));
}
