import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { named, testStores } from '../helpers/backend.ts';
import { waitForStart } from '../helpers/server-start.ts';
import { MNEMOS_BIN } from './serve-helpers.ts';

/**
 * `serve --json` prints its one object when it listens: README promises one
 * JSON object on stdout from every command with --json, and `serve` printed
 * none, so a script starting it on `--port 0` could learn the port only by
 * parsing log lines.
 */
test(named('serve --json prints one object once it listens (url, port, token file), and nothing else on stdout'), async () => {
  const t = testStores('mnemos-serve-json-');
  const tokenFile = join(t.dir, 'owner-token');
  const child = spawn(process.execPath, [MNEMOS_BIN, 'serve', '--port', '0', '--db', t.db, '--owner-token-file', tokenFile, '--json', '--consolidate-every-ms', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    await waitForStart(child, /\n/, { stream: 'stdout', what: 'mnemos serve --json' });
    const started = JSON.parse(out.trim());
    assert.equal(typeof started.port, 'number');
    assert.ok(started.port > 0, 'the port the OS chose for --port 0');
    assert.equal(started.url, `http://127.0.0.1:${started.port}`);
    assert.equal(started.ownerTokenFile, tokenFile);
    assert.equal(started.ownerTokenCreated, true);
    assert.equal(started.namespace, 'default');
    assert.deepEqual(started.allowedOrigins, [], 'no web page may call it by default');
    assert.deepEqual(started.allowedHosts, ['localhost', '127.0.0.1', '[::1]']);
    assert.equal(started.inspector, `${started.url}/inspector`, 'the web inspector page, added beside the others');
    const secret = readFileSync(tokenFile, 'utf8').trim();
    assert.ok(secret.length > 20);
    assert.ok(!out.includes(secret), 'the token itself is not printed on stdout');
    const health = await fetch(`${started.url}/healthz`);
    assert.equal(health.status, 200);
  } finally {
    child.kill('SIGTERM');
    assert.equal(await exited, 0, err);
    await t.cleanup();
  }
  assert.equal(out.trim().split('\n').length, 1, `one line on stdout, got: ${out}`);
});
