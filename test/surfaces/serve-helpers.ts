import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { runCli } from '../../src/surfaces/cli/main.ts';
import { waitForStart } from '../helpers/server-start.ts';

export const MNEMOS_BIN = join(import.meta.dirname, '../../bin/mnemos.js');

/** Runs the CLI in-process with --json and returns the parsed stdout object. */
export async function cli(args: string[]): Promise<any> {
  let out = '';
  let err = '';
  const code = await runCli([...args, '--json'], { stdout: (s: string) => ((out += s), true), stderr: (s: string) => ((err += s), true), env: {}, isTTY: false });
  if (code !== 0) throw new Error(`mnemos ${args.join(' ')} exited ${code}: ${err}`);
  return out.trim() ? JSON.parse(out) : undefined;
}

export async function createToken(db: string, role: 'owner' | 'guest' | 'agent', extra: string[] = []): Promise<{ token: string; id: string }> {
  const r = await cli(['token', 'create', '--role', role, '--db', db, ...extra]);
  return { token: r.token, id: r.record.id };
}

export interface SpawnedServer {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns `mnemos serve` on a free loopback port (port 0) and waits for its address line (failing with its stderr if it exits first). */
export async function spawnServe(db: string, extra: string[] = []): Promise<SpawnedServer> {
  const child = spawn(process.execPath, [MNEMOS_BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--db', db, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const url = (await waitForStart(child, /mnemos serve: (http:\/\/127\.0\.0\.1:\d+)/, { what: 'mnemos serve' }))[1]!;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    url,
    child,
    stderr: () => err,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface Reply {
  status: number;
  body: any;
}

export async function request(url: string, method: string, path: string, token: string | null, body?: unknown): Promise<Reply> {
  const res = await fetch(url + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/**
 * A TCP relay to the test PostgreSQL server: a store opened through it loses
 * its server when the relay closes, as when PostgreSQL goes down, without
 * touching the shared cluster. `port` reopens it where a store's URL points.
 */
export async function relay(target: URL, port = 0): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', end);
      s.on('close', () => (sockets.delete(s), end()));
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

/** Pieces of a store location an unauthenticated or non-owner caller must not learn. */
function locationParts(location: string): string[] {
  if (!/^postgres(ql)?:\/\//.test(location)) return [location];
  const u = new URL(location);
  return [u.host, u.hostname, u.username, u.pathname.slice(1), u.searchParams.get('schema') ?? ''].filter((p) => p.length > 0);
}

export function assertHides(message: string, location: string): void {
  for (const part of locationParts(location)) assert.ok(!message.includes(part), `"${message}" names ${part}`);
}

export interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** node:http, not fetch: fetch does not let a caller choose the Host header. */
export function raw(url: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url + path, { method, headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
