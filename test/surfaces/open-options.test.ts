import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory, type OpenMemoryOptions } from '../../src/index.ts';
import { tempDir } from '../helpers/temp.ts';

// SQLite only: these are options of openMemory, checked before any store opens (a file path stands for any store).

/** Runs openMemory in a fresh folder: a refused call must leave it empty (no ./.mnemos, no store file). */
async function refused(given: unknown, field: string, message: RegExp): Promise<void> {
  const tmp = tempDir('mnemos-open-options-');
  const was = process.cwd();
  process.chdir(tmp.dir);
  try {
    await assert.rejects(
      openMemory(given as OpenMemoryOptions),
      (e: Error & { code?: string; details?: { field?: string } }) => {
        assert.equal(e.code, 'validation_failed', `${JSON.stringify(given)}: ${e.message}`);
        assert.equal(e.details?.field, field, e.message);
        assert.match(e.message, message);
        return true;
      },
    );
    assert.deepEqual(readdirSync(tmp.dir), [], `${JSON.stringify(given)} created nothing`);
  } finally {
    process.chdir(was);
    tmp.cleanup();
  }
}

/**
 * openMemory read only the fields it knew: `openMemory('./my.db')` or a
 * misspelt `{ path }` opened (and created) ./.mnemos/memory.db in the
 * working folder instead; `embeddings: { provider: 'openAI' }` made every
 * later write an internal TypeError ("reading 'maxBatch'"); NaN or negative
 * lifecycle settings were taken as given.
 */
test('openMemory refuses options it would misread, naming the field, and creates nothing', async () => {
  await refused('./my.db', '(options)', /openMemory: \(options\) takes an options object such as \{ db: '.\/memory.db' \}, not a string/);
  await refused({ path: './my.db' }, 'path', /openMemory: path is not an option; the options are db, principal, config, now, lifecycle, onProgress/);
  await refused({ db: 5 }, 'db', /db must be a SQLite file path or a postgres:\/\/ URL \(a string\)/);
  await refused({ db: './m.db', now: 5 }, 'now', /now must be a function/);
  await refused({ db: './m.db', config: 'fast' }, 'config', /config must be an object/);
  await refused({ db: './m.db', config: { rrf: 60 } }, 'config.rrf', /config\.rrf is not an option; the options are .*rrfK/);
  await refused({ db: './m.db', config: { embeddings: { provider: 'openAI' } } }, 'config.embeddings.provider', /must be one of builtin, off, openai, onnx, not "openAI"/);
  await refused({ db: './m.db', config: { embeddings: null } }, 'config.embeddings.provider', /must be one of builtin, off, openai, onnx$/);
  await refused({ db: './m.db', lifecycle: { purgeAfterDays: 3 } }, 'lifecycle.purgeAfterDays', /is not an option; the options are .*purgeAfterMs/);
  await refused({ db: './m.db', lifecycle: { purgeAfterMs: Number.NaN } }, 'lifecycle.purgeAfterMs', /must be a finite number, not NaN/);
  await refused({ db: './m.db', lifecycle: { labileWindowMs: -1 } }, 'lifecycle.labileWindowMs', /0 or more, not -1/);
  await refused({ db: './m.db', lifecycle: { graphBatch: 0.5 } }, 'lifecycle.graphBatch', /whole number from 1, not 0.5/);
  await refused({ db: './m.db', lifecycle: { textDuplicateThreshold: 1.5 } }, 'lifecycle.textDuplicateThreshold', /from 0 to 1, not 1.5/);
  await refused({ db: './m.db', lifecycle: { modelGrowth: 1 } }, 'lifecycle.modelGrowth', /must be above 1/);
  await refused({ db: './m.db', lifecycle: { leaseMs: 0 } }, 'lifecycle.leaseMs', /above 0, not 0/);
  await refused({ db: './m.db', lifecycle: { consolidationIntervalMs: 0 } }, 'lifecycle.consolidationIntervalMs', /from 1 to 2147483647 .*not 0/);
});

test("a vector index setting given alone keeps the other's default, as README's { mode, threshold } reads", async () => {
  const tmp = tempDir('mnemos-open-options-');
  try {
    const config = { vectorIndex: { mode: 'exact' as const } };
    const m = await openMemory({ db: join(tmp.dir, 'm.db'), config: config as OpenMemoryOptions['config'] });
    try {
      assert.deepEqual(m.context.config.vectorIndex, { mode: 'exact', threshold: 200_000 });
      assert.deepEqual(config, { vectorIndex: { mode: 'exact' } }, "the caller's object is left as it was");
    } finally {
      await m.close();
    }
    assert.ok(existsSync(join(tmp.dir, 'm.db')));
  } finally {
    tmp.cleanup();
  }
});
