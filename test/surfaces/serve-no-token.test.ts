import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { named, testStores } from '../helpers/backend.ts';
import { waitForStart } from '../helpers/server-start.ts';
import { waitForExit } from '../helpers/child-wait.ts';
import { cli, createToken, MNEMOS_BIN, request } from './serve-helpers.ts';

/**
 * `npm start` makes a fresh store's first owner token; `mnemos serve`, what a
 * global or npx install runs, makes none unless given --owner-token-file. Its
 * start lines said nothing of tokens, so a new user's every request was
 * refused (401) with no word at start of how to get one.
 */
async function serveOnce(db: string): Promise<{ url: string; stderr: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [MNEMOS_BIN, 'serve', '--port', '0', '--db', db, '--json', '--consolidate-every-ms', '0', '--search-threads', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  // The --json object comes after every start line.
  const line = (await waitForStart(child, /^\{.*\}$/m, { stream: 'stdout', what: 'mnemos serve --json' }))[0];
  return {
    url: (JSON.parse(line) as { url: string }).url,
    stderr: err,
    stop: async () => {
      child.kill('SIGTERM');
      assert.equal((await waitForExit(child, { what: 'mnemos serve', stderr: () => err })).code, 0, err);
    },
  };
}

test(named('mnemos serve on a namespace with no token says at start that every request is refused and how to make a token'), async () => {
  const t = testStores('mnemos-serve-no-token-');
  try {
    const bare = await serveOnce(t.db);
    try {
      assert.match(bare.stderr, /tokens: namespace default has none, so \/v1, \/mcp and the inspector refuse every request: create one with mnemos token create --role owner/);
      assert.equal((await request(bare.url, 'GET', '/v1/status', null)).status, 401, 'what the line warns of');
    } finally {
      await bare.stop();
    }

    const { token, id } = await createToken(t.db, 'guest');
    const served = await serveOnce(t.db);
    try {
      assert.doesNotMatch(served.stderr, /tokens:/, 'a namespace with a token hears nothing of it');
      assert.equal((await request(served.url, 'GET', '/v1/status', token)).status, 200);
    } finally {
      await served.stop();
    }

    // A revoked token opens nothing: the namespace is as good as without one.
    await cli(['token', 'revoke', id, '--db', t.db]);
    const revoked = await serveOnce(t.db);
    try {
      assert.match(revoked.stderr, /tokens: namespace default has none/);
    } finally {
      await revoked.stop();
    }
  } finally {
    await t.cleanup();
  }
});
