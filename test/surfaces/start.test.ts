import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stopChild, waitForExit } from '../helpers/child-wait.ts';
import { waitForStart } from '../helpers/server-start.ts';
import { tempDir } from '../helpers/temp.ts';
import { request } from './serve-helpers.ts';

const START = join(import.meta.dirname, '../../bin/start.js');

// SQLite only: `npm start` on a fresh clone serves the embedded default store (./.mnemos/memory.db).
/** Runs `npm start`'s script in a fresh directory (as on a fresh clone) until it serves, then stops it. */
async function startOnce(cwd: string): Promise<{ url: string; stderr: string; code: number | null }> {
  const child = spawn(process.execPath, [START, '--port', '0'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  // The address line, and the owner token line whichever comes first.
  // A check that fails leaves no server running (it kept the test file's process alive).
  try {
    const url = (await waitForStart(child, /mnemos serve: (http:\/\/127\.0\.0\.1:\d+)(?=[\s\S]*owner token)|owner token[\s\S]*mnemos serve: (http:\/\/127\.0\.0\.1:\d+)/, { what: 'npm start' })).slice(1).find(Boolean)!;
    const token = readFileSync(join(cwd, '.mnemos/owner-token'), 'utf8').trim();
    const status = await request(url, 'GET', '/v1/status', token);
    assert.equal(status.status, 200, 'the saved owner token works');
    child.kill('SIGINT');
    const { code } = await waitForExit(child, { what: 'npm start after SIGINT', stderr: () => err });
    return { url, stderr: err, code };
  } finally {
    stopChild(child);
  }
}

describe('npm start (bin/start.js)', () => {
  it('on a fresh store creates an owner token once, saves it 0600, prints how to use it; a second start creates none', async () => {
    const tmp = tempDir('mnemos-start-');
    try {
      const first = await startOnce(tmp.dir);
      assert.match(first.stderr, /First start: created an owner token/);
      assert.match(first.stderr, /curl -H "Authorization: Bearer/);
      assert.equal(first.code, 0);
      const file = join(tmp.dir, '.mnemos/owner-token');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.ok(existsSync(join(tmp.dir, '.mnemos/memory.db')), 'serves the embedded default store');
      const token = readFileSync(file, 'utf8');
      const second = await startOnce(tmp.dir);
      assert.doesNotMatch(second.stderr, /First start/);
      assert.match(second.stderr, /owner token: .*owner-token/);
      assert.equal(readFileSync(file, 'utf8'), token, 'the token was not replaced');
    } finally {
      tmp.cleanup();
    }
  });
});

describe('a refused start', () => {
  it('leaves no store and no unseen owner token behind: settings are checked before the store opens', async () => {
    const tmp = tempDir('mnemos-refused-start-');
    try {
      // The environment's settings too: MNEMOS_CYCLE_TICK_MS=abc was read as "off" and the server started without a word.
      const envBad = (name: string, value: string) => ({ env: { [name]: value }, label: `${name}=${value}` });
      const cases = [
        ...[['--search-threads', '100'], ['--consolidate-every-ms=-5'], ['--cycle-tick-ms=-1'], ['--cycle-tick-ms', '0.5'], ['--consolidate-every-ms', '1.5']].map((args) => ({ args, env: {}, label: args.join(' ') })),
        { args: [], ...envBad('MNEMOS_CYCLE_TICK_MS', 'abc') },
        { args: [], ...envBad('MNEMOS_CYCLE_TICK_MS', '-1') },
        { args: [], ...envBad('MNEMOS_CONSOLIDATE_EVERY_MS', 'abc') },
        { args: [], ...envBad('MNEMOS_SEARCH_THREADS', 'abc') },
      ];
      for (const { args, env, label } of cases) {
        const child = spawn(process.execPath, [START, '--port', '0', ...args], { cwd: tmp.dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
        let err = '';
        child.stderr.on('data', (d) => (err += d));
        const { code } = await waitForExit(child, { what: `npm start ${label}`, stderr: () => err });
        assert.equal(code, 2, `${label}: ${err}`);
        assert.match(err, /must be/);
        assert.equal(existsSync(join(tmp.dir, '.mnemos/memory.db')), false, `${label} created a store`);
        assert.equal(existsSync(join(tmp.dir, '.mnemos/owner-token')), false, `${label} created a token`);
      }
    } finally {
      tmp.cleanup();
    }
  });
});
