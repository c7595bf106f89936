import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { MnemosError } from '../../src/domain/errors.ts';
import { listenError } from '../../src/surfaces/http/listen-error.ts';
import { tempDir } from '../helpers/temp.ts';
import { MNEMOS_BIN } from './serve-helpers.ts';

// No store is read: these are about the socket the server cannot open.

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`listen ${code}`), { code });
}

test('a failed listen becomes an error the user can act on, with the code of its cause', () => {
  const cases: [string, string, string, RegExp][] = [
    ['EADDRINUSE', '127.0.0.1', 'unavailable', /127\.0\.0\.1:7420: another program .* port 7420; stop it, or pass --port <n>/],
    ['EACCES', '0.0.0.0', 'forbidden', /may not open port 7420 .* pass --port 1024 or higher/],
    ['EADDRNOTAVAIL', '::2', 'validation_failed', /\[::2\]:7420: ::2 is no address of this machine; pass --host 127\.0\.0\.1/],
    ['ENOTFOUND', 'nowhere.invalid', 'validation_failed', /the name nowhere\.invalid does not resolve/],
    ['EAI_AGAIN', 'nowhere.invalid', 'validation_failed', /does not resolve/],
  ];
  for (const [code, host, want, message] of cases) {
    const cause = errno(code);
    const e = listenError(cause, host, 7420);
    assert.ok(MnemosError.is(e, want as never), `${code} -> ${String(e)}`);
    assert.match((e as Error).message, message);
    assert.equal((e as Error).cause, cause, 'the system error stays reachable');
  }
  const other = errno('EMFILE');
  assert.equal(listenError(other, '127.0.0.1', 7420), other, 'any other failure passes through as it is');
});

test('mnemos serve on a port another program holds exits unavailable (7) naming --port, not internal (1)', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const port = (holder.address() as AddressInfo).port;
  const tmp = tempDir('mnemos-listen-');
  try {
    const run = spawnSync(process.execPath, [MNEMOS_BIN, 'serve', '--port', String(port), '--db', join(tmp.dir, 'm.db'), '--owner-token-file', join(tmp.dir, 'token'), '--json'], { encoding: 'utf8' });
    assert.equal(run.status, 7, run.stderr);
    const { error } = JSON.parse(run.stdout) as { error: { code: string; message: string; details: { field: string } } };
    assert.equal(error.code, 'unavailable');
    assert.equal(error.details.field, 'port');
    assert.match(error.message, /pass --port/);
    assert.equal(existsSync(join(tmp.dir, 'token')), false, 'a start that never listened made no token it would never show');

    // 192.0.2.1 is a documentation address (RFC 5737) that no machine here holds.
    const away = spawnSync(process.execPath, [MNEMOS_BIN, 'serve', '--port', '0', '--host', '192.0.2.1', '--db', join(tmp.dir, 'm.db')], { encoding: 'utf8' });
    assert.equal(away.status, 2, away.stderr);
    assert.match(away.stderr, /192\.0\.2\.1 is no address of this machine/);
  } finally {
    holder.close();
    tmp.cleanup();
  }
});
