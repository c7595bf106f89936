import { readdirSync, realpathSync, type Dirent } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { sha256Hex } from '../../domain/hash.ts';
import { LIFECYCLES } from '../../domain/memory.ts';
import type { Principal } from '../../domain/principal.ts';
import { fileKeyPrefix, fileOfKey, isFileKey } from '../../domain/source-keys.ts';
import type { ServiceContext } from '../context.ts';
import type { MemoryKey } from '../../ports/store.ts';

/**
 * The path a file's chunks and lines are filed under (their `source.path`
 * and `file:<path>#L..` keys). A note reached by two paths, a symbolic link
 * and its target (a vault folder that is a link, /tmp and /private/tmp on
 * macOS), was two files: each import through the other path stored every
 * chunk again. Now a file is filed under the first path it was imported by,
 * and an import through any other path that leads to the same file (every
 * link resolved) finds it there. Stores made by earlier versions already
 * hold their files that way, so re-importing them adds nothing, through
 * either path. Not the real path for every file: a note imported through a
 * link and then forgotten whole has no chunk left to find it by, only its
 * tombstones under the link's path, and under its real path it came back.
 * (`resolve` alone already made `./a/../a/x.md` and `a/x.md` one file.)
 */
export async function fileIdentity(ctx: ServiceContext, p: Principal, abs: string): Promise<string> {
  if (await holdsFile(ctx, p, abs)) return abs;
  const real = realPath(abs) ?? abs;
  if (real !== abs && (await holdsFile(ctx, p, real))) return real;
  const paths = await linkedPaths(ctx, p);
  const held = paths.get(real)?.[0];
  if (held !== undefined) return held;
  // Filed under a link's path from now on: the next file met through the target, in this walk of a folder too, finds it.
  if (real !== abs) paths.set(real, [abs]);
  return abs;
}

/** The other path the caller's store holds the file at `real` (a real path) by, as an import would find it; null when none. */
export async function linkedPathOf(ctx: ServiceContext, p: Principal, real: string): Promise<string | null> {
  return (await linkedPaths(ctx, p)).get(real)?.[0] ?? null;
}

/** Another place a store holds the same file's memories: the path they cite, and the start of their source keys. */
export interface StoredCopy {
  path: string;
  keyPrefix: string;
}

/**
 * The other paths the caller's store holds this file's chunks or lines under,
 * besides `filed` (the path this import files them under, fileIdentity's):
 * a store an earlier version filled through a link and through its target
 * holds the file twice. Both copies are kept, as neither can be dropped
 * without the owner's word (each may have its own edits, links and
 * forgotten parts); an import adds to neither and names the other, so the
 * owner can forget one.
 */
export async function otherFileCopies(ctx: ServiceContext, p: Principal, given: string, filed: string): Promise<StoredCopy[]> {
  const real = realPath(given);
  if (real === null) return [];
  const out = new Set<string>();
  if (real !== filed && (await holdsFile(ctx, p, real))) out.add(real);
  for (const path of (await linkedPaths(ctx, p)).get(real) ?? []) if (path !== filed) out.add(path);
  return [...out].map((path) => ({ path, keyPrefix: fileKeyPrefix(path) }));
}

/**
 * realPath for the many files of a walk: each folder is resolved and listed
 * once (the listing says which of its files are links, and which are gone),
 * and a file on its own only when it is a link itself. Resolving each
 * file's whole path cost more than the walk's reads of a 5,000-file store.
 */
function folderwiseRealPath(): (path: string) => string | null {
  const folders = new Map<string, { real: string; entries: Map<string, Dirent> } | null>();
  return (path) => {
    const folder = dirname(path);
    let held = folders.get(folder);
    if (held === undefined) {
      const real = realPath(folder);
      const entries = real === null ? null : listing(folder);
      folders.set(folder, (held = real === null || entries === null ? null : { real, entries }));
    }
    if (held === null) return realPath(path);
    const entry = held.entries.get(basename(path));
    if (entry === undefined) return null;
    // A link is resolved on its own; a file system that does not say an entry's kind is asked for the path whole.
    if (entry.isSymbolicLink() || !(entry.isFile() || entry.isDirectory())) return realPath(path);
    return join(held.real, basename(path));
  };
}

function listing(folder: string): Map<string, Dirent> | null {
  try {
    return new Map(readdirSync(folder, { withFileTypes: true }).map((d) => [d.name, d]));
  } catch {
    return null;
  }
}

/**
 * The path with every link resolved; null when it does not exist. The
 * system's own realpath first: one call where the portable one checks each
 * folder of the path, which the walk below paid once per file held.
 */
export function realPath(path: string): string | null {
  try {
    return realpathSync.native(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
  }
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** Whether the caller holds any chunk or line filed under `path` (of any lifecycle). */
async function holdsFile(ctx: ServiceContext, p: Principal, path: string): Promise<boolean> {
  return (await ownFileKey(ctx, p, path)) !== null;
}

/** One of the caller's chunks or lines filed under `path` (of any lifecycle); null when none. */
async function ownFileKey(ctx: ServiceContext, p: Principal, path: string): Promise<MemoryKey | null> {
  // From the first key of the file's own form (`...#L<n>`): keys of a file named `<path>#...` sort before it.
  const filter = { sourceKeyPrefix: fileKeyPrefix(path), sourceKeyAfter: { sourceKey: `${fileKeyPrefix(path)}L`, id: '' }, lifecycles: [...LIFECYCLES] };
  const keys = await ctx.store.listKeys(p, filter, { limit: 20 }, 'source_key_asc');
  return keys.find((k) => k.ownerId === p.id && isFileKey(path, k.sourceKey)) ?? null;
}

/**
 * The caller's files filed under a path that is not their real path (a link,
 * as earlier versions kept it), by real path: every such path, first found
 * first (a store an earlier version filled may hold one file under two
 * links). Walked once an import needs it (a file the store holds under
 * neither its real path nor the path given; any import that looks for
 * other copies of its file, otherFileCopies), a page of keys per look-up
 * (WALK_PAGE, below), and kept for the imports that follow within
 * LINKED_PATHS_IDLE_MS of the last: a folder of
 * 5,000 new notes walked the store once per note. Not kept longer, since a
 * path filed as a plain file can become a link later (a vault moved, a link
 * left in its place). Paths filed through a link in this process are added
 * as they are filed.
 */
const LINKED_PATHS_IDLE_MS = 30_000;
type LinkCache<V> = WeakMap<ServiceContext, Map<string, { map: Promise<Map<string, V>>; used: number }>>;
const linked: LinkCache<string[]> = new WeakMap();
const linkedSessions: LinkCache<FileSession[]> = new WeakMap();

function linkedPaths(ctx: ServiceContext, p: Principal): Promise<Map<string, string[]>> {
  return cachedWalk(linked, ctx, p, walkLinkedPaths);
}

/** A transcript session named by its file: the absolute path, or past 256 characters (a session id's limit) its base name and a hash of the path. */
export function pathSession(abs: string): string {
  return abs.length <= 256 ? abs : `${baseSession(abs).slice(0, 180)}@${sha256Hex(abs).slice(0, 16)}`;
}

/** A file's base name without its extension: the session earlier versions named a transcript's turns by. */
export function baseSession(abs: string): string {
  return basename(abs).replace(/\.[^.]+$/, '');
}

/** A session named by a file, and the path its turns cite (source.path). */
export interface FileSession {
  session: string;
  path: string;
}

/**
 * The caller's transcript sessions named by a path that is not their real
 * path (a file imported through a link), by real path: how an import through
 * the real path, or another link, finds the session the file's turns are
 * already under (every such session, first found first). Walked and kept as
 * linkedPaths is, one look-up per session.
 */
export async function linkedSessionsOf(ctx: ServiceContext, p: Principal, real: string): Promise<FileSession[]> {
  return (await cachedWalk(linkedSessions, ctx, p, walkLinkedSessions)).get(real) ?? [];
}

/** Files the caller's transcripts were filed under in this process through a link: the next import through the target finds them. */
export async function noteLinkedSession(ctx: ServiceContext, p: Principal, real: string, named: FileSession): Promise<void> {
  const map = await cachedWalk(linkedSessions, ctx, p, walkLinkedSessions);
  if (!map.has(real)) map.set(real, [named]);
}

/** How a hashed session (pathSession of a deep path) ends: its key does not hold the path, its turns' source.path does. */
const HASHED_SESSION = /@[0-9a-f]{16}$/;

async function walkLinkedSessions(ctx: ServiceContext, p: Principal): Promise<Map<string, FileSession[]>> {
  const out = new Map<string, FileSession[]>();
  const start = 'transcript:';
  for (let after: { sourceKey: string; id: string } | undefined; ; ) {
    const [k] = await ctx.store.listKeys(p, { sourceKeyPrefix: start, lifecycles: [...LIFECYCLES], ...(after ? { sourceKeyAfter: after } : {}) }, { limit: 1 }, 'source_key_asc');
    if (!k) return out;
    const key = k.sourceKey!;
    const at = key.lastIndexOf('#');
    const session = key.slice(start.length, at);
    // Only the caller's own turns; anything else is passed key by key.
    if (k.ownerId !== p.id || at < start.length || !/^\d+$/.test(key.slice(at + 1))) {
      after = { sourceKey: key, id: k.id };
      continue;
    }
    // A path deeper than a session id holds: the turn's source.path names the file, when its session is that path's.
    // Without this, a deep file imported through a link came back as a second conversation through its real path.
    const path = session.startsWith('/') ? session : HASHED_SESSION.test(session) ? await citedPath(ctx, p, k.id, session) : null;
    const real = path === null ? null : realPath(path);
    if (path !== null && real !== null && real !== path) out.set(real, [...(out.get(real) ?? []), { session, path }]);
    // Past the session's own keys (`#` and digits): ":" sorts after every digit.
    after = { sourceKey: `${start}${session}#:`, id: '' };
  }
}

/** The path a hashed session's turn cites, when that session is the one the path names; null otherwise. */
async function citedPath(ctx: ServiceContext, p: Principal, id: string, session: string): Promise<string | null> {
  const [m] = await ctx.store.getMany(p, [id]);
  const path = m?.source.path;
  return path !== undefined && path.startsWith('/') && pathSession(path) === session ? path : null;
}

async function cachedWalk<V>(cache: LinkCache<V>, ctx: ServiceContext, p: Principal, walk: (ctx: ServiceContext, p: Principal) => Promise<Map<string, V>>): Promise<Map<string, V>> {
  let perPrincipal = cache.get(ctx);
  if (!perPrincipal) cache.set(ctx, (perPrincipal = new Map()));
  const id = `${p.namespace}\0${p.id}`;
  const now = Date.now();
  let held = perPrincipal.get(id);
  if (!held || now - held.used > LINKED_PATHS_IDLE_MS) {
    const map = walk(ctx, p);
    held = { map, used: now };
    perPrincipal.set(id, held);
    // A failed walk (a store error) is not kept: the next import tries again.
    map.catch(() => perPrincipal.delete(id));
  }
  held.used = now;
  return await held.map;
}

/**
 * Keys read per statement of the walk. It read one key per statement (a
 * jump from each file to the next): a store of 5,000 files took 5,000
 * statements, seconds on SQLite and up to fourteen on PostgreSQL (a busy
 * two-core machine), before a single new note was imported. A page of keys
 * is read at once and grouped by file here; past a file whose own key is
 * found, the next page starts after the file's last key, so a file of many
 * chunks costs no more than one.
 */
const WALK_PAGE = 2000;

async function walkLinkedPaths(ctx: ServiceContext, p: Principal): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const realOf = folderwiseRealPath();
  // The file last seen and whether one of the caller's own keys was found for it: keys of one file are adjacent,
  // but for a file named like one of its keys (`x.md#L1`, whose keys sort among x.md's), so each file counts once.
  let file: string | null = null;
  let own: MemoryKey | null = null;
  const counted = new Set<string>();
  const add = (path: string | null) => {
    const real = path === null ? null : realOf(path);
    if (path !== null && real !== null && real !== path) out.set(real, [...(out.get(real) ?? []), path]);
  };
  // Awaited only for a deep file: an await per file held was a good part of the walk's time.
  const done = (): Promise<void> | void => {
    if (file === null || own === null || counted.has(file)) return;
    counted.add(file);
    // A deep file is keyed by a digest of its path: its chunks' source.path names it. Passed over, a deep note
    // imported through a linked folder was stored again through the folder's real path.
    if (file.startsWith(DIGEST_FORM)) return digestedPath(ctx, p, own.id, file).then(add);
    add(file);
  };
  for (let after: { sourceKey: string; id: string } | undefined; ; ) {
    const page = await ctx.store.listKeys(p, { sourceKeyPrefix: 'file:', lifecycles: [...LIFECYCLES], ...(after ? { sourceKeyAfter: after } : {}) }, { limit: WALK_PAGE }, 'source_key_asc');
    for (const k of page) {
      after = { sourceKey: k.sourceKey!, id: k.id };
      const keyed = fileOfKey(k.sourceKey!);
      if (keyed === null) continue;
      if (keyed !== file) {
        const deep = done();
        if (deep) await deep;
        [file, own] = [keyed, null];
      }
      // Another principal's key (a shared file) is passed; the file counts once one of the caller's own is seen.
      if (own === null && k.ownerId === p.id) own = k;
    }
    if (page.length < WALK_PAGE) {
      const deep = done();
      if (deep) await deep;
      return out;
    }
    // Past the file's own keys (`#L` and digits, dashes): ":" sorts after every digit. Only for the page's last
    // file, once its own key was found: every other file of the page is behind it already.
    if (file !== null && own !== null) after = { sourceKey: `file:${file}#L:`, id: '' };
  }
}

/** How the file part of a deep file's keys starts (fileKeyPrefix): no absolute path does. */
const DIGEST_FORM = 'sha256:';

/** The path a deep file's chunk cites, when the key's digest is that path's (`keyed` is what its key names); null otherwise. */
async function digestedPath(ctx: ServiceContext, p: Principal, id: string, keyed: string): Promise<string | null> {
  const [m] = await ctx.store.getMany(p, [id]);
  const path = m?.source.path;
  return path !== undefined && fileKeyPrefix(path) === `file:${keyed}#` ? path : null;
}
