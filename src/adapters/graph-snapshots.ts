import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sha256File } from '../runtime/file-sha256.ts';
import type { HnswIndex } from './usearch.ts';
import { makeFolders } from '../runtime/make-folders.ts';

/**
 * Approximate-index graphs saved to disk, so a process that opens a large
 * store loads the graph its last owner built instead of building it again
 * (at a million vectors a build takes minutes of CPU). A saved graph is a
 * cache, never a source of truth: the loader checks it against the vectors
 * the store holds now, row by row, and anything it cannot trust is built
 * again from the database.
 *
 * One graph per namespace and model, in three files:
 * - `<key>.json`: what the graph is (model, namespace, dimensions, graph
 *   parameters, usearch version) and the name and checksum of the other two;
 * - `<key>.<generation>.graph`: usearch's own file;
 * - `<key>.<generation>.rows`: the row keys in the graph and a hash of each
 *   row's vector, so rows changed or gone since the save are found.
 * A save writes a new generation and swaps the `.json` in by a rename, so a
 * reader sees the old graph or the new one, never a half-written file; the
 * checksum keeps a damaged file away from the native loader.
 *
 * Forgetting: usearch keeps a removed row's vector in its node until the
 * node is reused, so a graph's removed nodes are overwritten before it is
 * saved (vector-ann.ts, `scrub`), a forget deletes the namespace's saved
 * graphs (`discard`), a process holding a saved copy deletes it when it
 * learns of a removal, and a loader that finds rows gone since the save
 * deletes the files it loaded.
 */
export interface GraphIdentity {
  model: string;
  namespace: string;
  dims: number;
  /** Everything about how the graph was made that must match to reuse it (parameters, library version). */
  params: Record<string, string | number>;
}

/** The rows a saved graph holds: row keys in ascending order, and the hash of each row's vector, index by index; and its placeholder nodes, which hold no row. */
export interface GraphRows {
  rowids: Float64Array;
  hashes: Uint32Array;
  placeholders: number;
}

interface Meta extends GraphIdentity {
  format: number;
  generation: string;
  rows: number;
  placeholders: number;
  graphBytes: number;
  graphSha256: string;
  rowsSha256: string;
  savedAt: string;
}

const FORMAT = 1;
/** A generation's files that no `.json` names and older than this were left by a save that never finished. */
const ABANDONED_MS = 60 * 60_000;

export class GraphSnapshots {
  constructor(readonly dir: string) {}

  /**
   * The saved graph of this namespace and model, loaded into `fresh` (an
   * empty graph made with the same parameters), with its rows; or why there
   * is none to use. A file that fails its checks is deleted.
   */
  load(id: GraphIdentity, fresh: () => HnswIndex): { graph: HnswIndex; rows: GraphRows } | { reason: string } {
    const key = this.key(id);
    const metaPath = join(this.dir, `${key}.json`);
    let meta: Meta;
    try {
      meta = JSON.parse(readFileSync(metaPath, 'utf8')) as Meta;
    } catch (err) {
      return { reason: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no saved graph' : `the saved graph's description could not be read (${(err as Error).message})` };
    }
    const differs = mismatch(meta, id);
    if (differs) return { reason: `the saved graph was made ${differs}` };
    const graphPath = join(this.dir, `${key}.${meta.generation}.graph`);
    const rowsPath = join(this.dir, `${key}.${meta.generation}.rows`);
    try {
      if (statSync(graphPath).size !== meta.graphBytes || sha256File(graphPath) !== meta.graphSha256) return this.reject(key, 'the saved graph file is damaged (its checksum differs)');
      const bytes = readFileSync(rowsPath);
      if (bytes.length !== meta.rows * 12 || sha256(bytes) !== meta.rowsSha256) return this.reject(key, 'the saved graph\'s row list is damaged (its checksum differs)');
      const graph = fresh();
      graph.load(graphPath);
      const placeholders = Number.isInteger(meta.placeholders) && meta.placeholders >= 0 ? meta.placeholders : NaN;
      if (graph.size() !== meta.rows + placeholders) return this.reject(key, `the saved graph holds ${graph.size()} nodes where its description says ${meta.rows} rows and ${meta.placeholders} placeholders`);
      // Copies, not views: the rows file's buffer need not be aligned for Float64Array.
      const rowids = new Float64Array(meta.rows);
      const hashes = new Uint32Array(meta.rows);
      for (let i = 0; i < meta.rows; i++) {
        rowids[i] = bytes.readDoubleLE(8 * i);
        hashes[i] = bytes.readUInt32LE(8 * meta.rows + 4 * i);
        if (i > 0 && !(rowids[i]! > rowids[i - 1]!)) return this.reject(key, 'the saved graph\'s rows are out of order');
      }
      return { graph, rows: { rowids, hashes, placeholders } };
    } catch (err) {
      // Another process's save replaced this generation between our reads, or the files are unreadable.
      return { reason: `the saved graph could not be loaded (${(err as Error).message})` };
    }
  }

  /** Writes the graph and its rows as a new generation and makes it the one `load` finds. Throws on a file system error. */
  save(id: GraphIdentity, graph: HnswIndex, rows: GraphRows): void {
    makeFolders(this.dir);
    const key = this.key(id);
    const generation = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
    const graphPath = join(this.dir, `${key}.${generation}.graph`);
    const rowsPath = join(this.dir, `${key}.${generation}.rows`);
    const metaPath = join(this.dir, `${key}.json`);
    const previous = this.generationOf(metaPath);
    try {
      graph.save(graphPath);
      syncFile(graphPath);
      const bytes = Buffer.alloc(rows.rowids.length * 12);
      for (let i = 0; i < rows.rowids.length; i++) {
        bytes.writeDoubleLE(rows.rowids[i]!, 8 * i);
        bytes.writeUInt32LE(rows.hashes[i]!, 8 * rows.rowids.length + 4 * i);
      }
      writeDurably(rowsPath, bytes);
      const meta: Meta = {
        format: FORMAT,
        ...id,
        generation,
        rows: rows.rowids.length,
        placeholders: rows.placeholders,
        graphBytes: statSync(graphPath).size,
        graphSha256: sha256File(graphPath),
        rowsSha256: sha256(bytes),
        savedAt: new Date().toISOString(),
      };
      const tmp = join(this.dir, `${key}.${generation}.tmp`);
      writeDurably(tmp, Buffer.from(JSON.stringify(meta)));
      renameSync(tmp, metaPath);
      syncDir(this.dir);
    } catch (err) {
      for (const p of [graphPath, rowsPath, join(this.dir, `${key}.${generation}.tmp`)]) rmSync(p, { force: true });
      throw err;
    }
    this.sweep(key, generation, previous);
  }

  /** Deletes the saved graphs of a namespace (every model, or all but `keepModel`): after a forget, or once a model is replaced. */
  discard(namespace: string, keepModel?: string): void {
    if (!existsSync(this.dir)) return;
    const prefix = `${hash(namespace)}-`;
    const keep = keepModel === undefined ? null : `${prefix}${hash(keepModel)}.`;
    for (const name of readdirSync(this.dir)) {
      if (name.startsWith(prefix) && (keep === null || !name.startsWith(keep))) rmSync(join(this.dir, name), { force: true });
    }
  }

  /** Deletes this namespace and model's saved graph: its files hold rows the store no longer has. */
  drop(id: GraphIdentity): void {
    this.sweep(this.key(id), null, null, true);
  }

  /** Whether a saved graph of this namespace and model exists. */
  has(id: GraphIdentity): boolean {
    return existsSync(join(this.dir, `${this.key(id)}.json`));
  }

  private reject(key: string, reason: string): { reason: string } {
    this.sweep(key, null, null, true);
    return { reason };
  }

  private key(id: GraphIdentity): string {
    // The namespace first, so `discard` finds a namespace's files by their prefix.
    return `${hash(id.namespace)}-${hash(id.model)}`;
  }

  private generationOf(metaPath: string): string | null {
    try {
      return (JSON.parse(readFileSync(metaPath, 'utf8')) as Meta).generation ?? null;
    } catch {
      return null;
    }
  }

  /**
   * Removes the files of generations other than `current`: the one the old
   * `.json` named, and any left by an unfinished save over an hour ago (not
   * younger ones: another process may be writing them now). `all` removes
   * every file of the key, the `.json` first.
   */
  private sweep(key: string, current: string | null, previous: string | null, all = false): void {
    if (!existsSync(this.dir)) return;
    if (all) rmSync(join(this.dir, `${key}.json`), { force: true });
    for (const name of readdirSync(this.dir)) {
      if (!name.startsWith(`${key}.`) || name === `${key}.json`) continue;
      const generation = name.slice(key.length + 1, name.lastIndexOf('.'));
      if (generation === current) continue;
      const path = join(this.dir, name);
      try {
        if (all || generation === previous || Date.now() - statSync(path).mtimeMs > ABANDONED_MS) rmSync(path, { force: true });
      } catch {
        // Gone already: another process swept it.
      }
    }
  }
}

/**
 * The saved graphs of a store: in the configured directory (null: none), or
 * by default beside a SQLite file (`<file>-graphs`, as SQLite keeps its
 * `-wal` file) and, for a database server, under ./.mnemos in a directory
 * named after the database. An in-memory store saves none.
 */
export function graphSnapshotsFor(configured: string | null | undefined, store: { file: string } | { server: string }): GraphSnapshots | null {
  if (configured !== undefined) return configured === null ? null : new GraphSnapshots(resolve(configured));
  if ('file' in store) return store.file === ':memory:' || store.file === '' ? null : new GraphSnapshots(`${resolve(store.file)}-graphs`);
  return new GraphSnapshots(resolve('.mnemos', `graphs-${hash(store.server)}`));
}

/**
 * A hash of a vector's bits, FNV-style a 32-bit word at a time, so a row
 * whose vector changed since a save is found. Each step (xor a word, then
 * multiply by an odd number modulo 2^32) is a bijection of the running hash,
 * so a change in any single word always changes the result; hashing the
 * million vectors of a load takes a fraction of a second.
 */
export function vectorHash(v: Float32Array): number {
  const words = new Uint32Array(v.buffer, v.byteOffset, v.length);
  let h = 0x811c9dc5;
  for (let i = 0; i < words.length; i++) h = Math.imul(h ^ words[i]!, 0x01000193);
  return h >>> 0;
}

function mismatch(meta: Meta, id: GraphIdentity): string | null {
  if (meta.format !== FORMAT) return `in format ${meta.format}, not ${FORMAT}`;
  // It names files: nothing but what `save` writes, so a hand-edited description cannot point outside the directory.
  if (typeof meta.generation !== 'string' || !/^[0-9a-z]+-[0-9a-f]{8}$/.test(meta.generation)) return 'by something else (its generation is not one this code writes)';
  if (meta.model !== id.model || meta.namespace !== id.namespace) return 'for another namespace or model';
  if (meta.dims !== id.dims) return `with ${meta.dims} dimensions, not ${id.dims}`;
  for (const [k, v] of Object.entries(id.params)) if (meta.params?.[k] !== v) return `with ${k} ${meta.params?.[k]}, not ${v}`;
  return null;
}

function hash(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 16);
}

function sha256(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}


function syncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeDurably(path: string, bytes: Uint8Array): void {
  writeFileSync(path, bytes);
  syncFile(path);
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not every platform lets a directory be opened for fsync; the rename itself is still atomic.
  }
}
