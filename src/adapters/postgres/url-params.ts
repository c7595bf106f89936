import { statSync } from 'node:fs';
import { MnemosError } from '../../domain/errors.ts';

/**
 * The database URL's parameters that pg reads, checked before connecting.
 * pg takes any value and acts on it in its own way: `?sslmode=bogus` asked
 * for TLS with full verification and failed as "the server does not support
 * SSL", `?ssl=false` turned TLS on (a non-empty string), `?port=abc` ended the
 * process with no message, `?statement_timeout=5s` became 5 ms and
 * `?query_timeout=abc` cut every query after 1 ms. A bad value is refused
 * here, naming the parameter and what it takes; nothing is connected to.
 * Parameters pg does not read pass through to it unchecked, as before.
 */

const SSLMODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'] as const;
/** pg's libpq-compatible mode knows libpq's values only: its `no-verify` is pg's own. */
const LIBPQ_SSLMODES = SSLMODES.filter((m) => m !== 'no-verify');
const SSL_VALUES = ['true', 'false', '1', '0', 'no-verify'];
const SSLNEGOTIATION = ['postgres', 'direct'];
const BOOLEAN = ['true', 'false'];
/** Sent to the server as whole milliseconds by pg, which drops a unit (`5s` became 5 ms). */
const MILLISECOND_PARAMS = ['statement_timeout', 'idle_in_transaction_session_timeout', 'query_timeout'];
/** Files pg reads when it parses the URL: a missing one surfaced as an `internal` ENOENT. */
const FILE_PARAMS = ['sslrootcert', 'sslcert', 'sslkey'];

/** Throws `validation_failed` for the first parameter whose value pg would misread or refuse. */
export function checkPgParams(q: URLSearchParams): void {
  const libpq = oneOf(q, 'uselibpqcompat', BOOLEAN) === 'true';
  const sslmode = oneOf(q, 'sslmode', libpq ? LIBPQ_SSLMODES : SSLMODES, libpq ? ' (with uselibpqcompat=true, libpq\'s values)' : '');
  const ssl = oneOf(q, 'ssl', SSL_VALUES);
  const negotiation = oneOf(q, 'sslnegotiation', SSLNEGOTIATION);
  for (const port of q.getAll('port')) {
    if (!(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) throw invalid('port', port, 'a port number, 1 to 65535');
  }
  for (const name of MILLISECOND_PARAMS) {
    for (const v of q.getAll(name)) {
      if (!(/^\d{1,10}$/.test(v) && Number(v) <= 2 ** 31 - 1)) throw invalid(name, v, 'whole milliseconds (digits only, no unit), 0 for none');
    }
  }
  for (const name of FILE_PARAMS) {
    for (const v of q.getAll(name)) checkFile(name, v);
  }
  const sslOff = sslmode === 'disable' || ssl === 'false' || ssl === '0';
  if (negotiation === 'direct' && sslOff) {
    throw new MnemosError('validation_failed', 'sslnegotiation=direct in the database URL needs TLS, which the URL turns off (sslmode=disable, ssl=0 or ssl=false)', { field: 'sslnegotiation' });
  }
  if (libpq && sslmode === 'verify-ca' && q.get('sslrootcert') === null) {
    throw new MnemosError('validation_failed', 'sslmode=verify-ca with uselibpqcompat=true in the database URL needs sslrootcert=<CA file>; or use sslmode=verify-full', { field: 'sslrootcert' });
  }
}

/**
 * The URL as pg should read it: `?ssl=false` is written `ssl=0`, since pg
 * takes the word as a non-empty string, that is as true.
 */
export function normalizePgParams(q: URLSearchParams): void {
  const all = q.getAll('ssl');
  if (all.includes('false')) {
    q.delete('ssl');
    for (const v of all) q.append('ssl', v === 'false' ? '0' : v);
  }
}

function checkFile(name: string, path: string): void {
  let file = false;
  try {
    file = statSync(path).isFile();
  } catch {
    // missing or unreadable: said below
  }
  if (!file) throw invalid(name, path, 'the path of a readable file (pg reads it before connecting)');
}

/** The value pg acts on (the last, when a parameter is given twice); every one given is checked. */
function oneOf(q: URLSearchParams, name: string, allowed: readonly string[], note = ''): string | null {
  const all = q.getAll(name);
  for (const v of all) if (!allowed.includes(v)) throw invalid(name, v, `one of ${allowed.join(', ')}${note}`, allowed);
  return all.at(-1) ?? null;
}

function invalid(name: string, value: string, takes: string, allowed?: readonly string[]): MnemosError {
  return new MnemosError('validation_failed', `invalid ${name} "${value}" in the database URL: ${takes}`, { field: name, ...(allowed ? { allowed } : {}) });
}
