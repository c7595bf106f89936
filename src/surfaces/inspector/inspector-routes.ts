import { readFile } from 'node:fs/promises';
import type { Context, Env, Hono } from 'hono';

/**
 * The web inspector: one page, one script, one style sheet, served as they
 * are. It reads memory only through the /v1 routes with the token the user
 * types, so it has no scope logic of its own; these routes serve files and
 * nothing a token guards.
 */

/** The only files served, by the name in the URL: a name not listed is 404, so no path ever reaches the disk. */
const ASSETS: Readonly<Record<string, { file: string; type: string }>> = {
  'inspector.js': { file: 'inspector.js', type: 'text/javascript; charset=utf-8' },
  'inspector.css': { file: 'inspector.css', type: 'text/css; charset=utf-8' },
  // Named by the page: without it every load asked for /favicon.ico and logged a 404 in the console.
  'favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
};
const PAGE = { file: 'index.html', type: 'text/html; charset=utf-8' };

/**
 * No inline script or style (memory text put into the page can then never
 * run), no other site's content, no framing (clickjacking), no form posting
 * anywhere (a form sent without the script would put the token in a URL).
 */
export const INSPECTOR_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the files are: beside this module, in src/ (through tsx) and in dist/ (scripts/build.js copies them). */
const ASSET_DIR = new URL('./assets/', import.meta.url);

/** Read on first request and kept: the files do not change while the server runs. */
const cache = new Map<string, Promise<Buffer>>();

function load(file: string): Promise<Buffer> {
  let p = cache.get(file);
  if (!p) {
    p = readFile(new URL(file, ASSET_DIR));
    // A failed read (a build without the assets) is tried again next time, not remembered.
    p.catch(() => cache.delete(file));
    cache.set(file, p);
  }
  return p;
}

async function send(c: Context, asset: { file: string; type: string }): Promise<Response> {
  const body = await load(asset.file);
  c.header('Content-Type', asset.type);
  c.header('Content-Security-Policy', INSPECTOR_CSP);
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Frame-Options', 'DENY');
  c.header('Cache-Control', 'no-cache');
  return c.body(new Uint8Array(body), 200);
}

/** Adds GET /inspector (the page) and GET /inspector/assets/<name> to the app. */
export function addInspectorRoutes<E extends Env>(app: Hono<E>): void {
  app.get('/inspector', (c) => send(c, PAGE));
  app.get('/inspector/assets/:name', (c) => {
    const name = c.req.param('name');
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) return c.json({ error: { code: 'not_found', message: `the inspector has no file ${JSON.stringify(name.slice(0, 100))}; it serves ${Object.keys(ASSETS).join(', ')}` } }, 404);
    return send(c, asset);
  });
}
