import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { runCli } from '../../src/surfaces/cli/main.ts';
import { named, testStores } from '../helpers/backend.ts';

test(named('export --out of a store larger than the stream buffer many times over: whole file, no listener-leak warning'), async () => {
  const { dir, db, cleanup } = testStores();
  const warnings: string[] = [];
  const onWarning = (w: Error) => void warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  try {
    const m = await openMemory({ db });
    const filler = 'x'.repeat(900);
    for (let b = 0; b < 3; b++) await m.rememberMany(Array.from({ length: 500 }, (_, i) => ({ text: `memory ${b}-${i} ${filler}` })));
    await m.close();
    const out = join(dir, 'all.jsonl');
    let stdout = '';
    const code = await runCli(['export', '--out', out, '--db', db, '--json'], { stdout: (s) => ((stdout += s), true), stderr: () => true, env: {}, isTTY: false });
    assert.equal(code, 0);
    assert.equal(JSON.parse(stdout).memories, 1500);
    assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, 1500);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(warnings.filter((w) => /MaxListeners/.test(w)), []);
  } finally {
    process.off('warning', onWarning);
    await cleanup();
  }
});
