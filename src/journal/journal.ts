import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { MnemosError } from '../domain/errors.ts';
import { clusterText, declaredIds, type MemoryCluster } from './cluster.ts';
import { withLock, type LockOptions } from './file-lock.ts';
import { appendDurably, readFrom, readIntent, removeIntent, statFile, truncateDurably, writeIntent, type FileState } from './journal-io.ts';
import { scanJournalBytes } from './journal-scan.ts';
import { parseClusters } from './parse-clusters.ts';
import { DEFAULT_LIMITS, UNARY_PREDICATES, type JournalLimits } from './schema.ts';
import { JournalSnapshot } from './snapshot.ts';
import { clusterProblems, invalidCluster, type ValidationProblem } from './validate.ts';

/**
 * The append-only `.metta` journal file.
 *
 * Durability choice: append + fsync, with torn-tail detection on open,
 * rather than writing a temporary copy and renaming it over the journal.
 * Rename costs a full copy of the journal per append (10,000 appends to a
 * 5 MB journal would rewrite gigabytes), while an append writes only the new
 * record. Both are crash-safe here: a record only counts once its END line
 * and final newline are on disk, appends happen only under the lock, and the
 * next writer (or `open`) holding the lock truncates whatever a killed
 * appender left after the last complete record, with a warning. Nothing but
 * complete records is ever observed, and a rejected cluster is refused
 * before the file is touched, so the file stays byte-identical.
 *
 * A batch (appendMany of several clusters) is all or nothing across a crash
 * too: its intent (`<journal>.batch`: where the file ended, how many bytes
 * follow) is fsynced first and removed after. Torn-tail repair alone cut
 * only the last unfinished record, and kept the batch's complete ones.
 */

/** Runs on the canonical text of each cluster before it is written; throw to reject. */
export type ParseCheckHook = (canonicalText: string, clusterId: string) => Promise<void> | void;

export interface JournalOptions {
  /** No lock, no repair: a torn or in-progress tail is skipped with a warning. Appends are refused. */
  readOnly?: boolean;
  limits?: Partial<JournalLimits>;
  parseCheck?: ParseCheckHook;
  lock?: LockOptions;
}

export interface AppendResult {
  clusterIds: string[];
  bytesWritten: number;
  /** Repairs made while taking the lock (e.g. a torn tail left by a killed appender). */
  warnings: string[];
}

export class Journal {
  readonly path: string;
  private readonly options: JournalOptions;
  private readonly limits: JournalLimits;
  private snapshot = new JournalSnapshot();
  private knownBytes = 0;
  private knownLines = 0;
  /** The last record read ends without its newline (hand-edited file): owed before the next append. */
  private missingNewline = false;
  private identity: FileState | null = null;
  private readonly allWarnings: string[] = [];

  private constructor(path: string, options: JournalOptions) {
    this.path = path;
    this.options = options;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
  }

  /** Reads the journal (creating nothing) and repairs a torn tail under the lock unless read-only. */
  static async open(path: string, options: JournalOptions = {}): Promise<Journal> {
    // Before the lock, which would otherwise leave `<folder>.lock` beside it.
    assertJournalPath(path);
    const journal = new Journal(path, options);
    await guardIo(path, async () => {
      if (options.readOnly) journal.load(false);
      else await withLock(journal.lockPath, options.lock ?? {}, () => journal.load(true));
    });
    return journal;
  }

  get lockPath(): string {
    return this.path + '.lock';
  }

  private get intentPath(): string {
    return this.path + '.batch';
  }

  /** Every warning since open, oldest first. */
  get warnings(): readonly string[] {
    return this.allWarnings;
  }

  /** The clusters and indexes as of the last read or append. */
  view(): JournalSnapshot {
    return this.snapshot;
  }

  clusters(): readonly MemoryCluster[] {
    return this.snapshot.clusters();
  }

  /** Picks up clusters appended by other processes since the last read (no lock, no repair). */
  refresh(): string[] {
    try {
      return this.load(false);
    } catch (err) {
      throw asJournalError(this.path, err);
    }
  }

  async append(input: MemoryCluster | string): Promise<AppendResult> {
    return this.appendMany([input]);
  }

  /** Appends several clusters as one write: all of them or none. */
  async appendMany(inputs: ReadonlyArray<MemoryCluster | string>): Promise<AppendResult> {
    if (this.options.readOnly) throw new MnemosError('read_only', `journal ${this.path} was opened read-only; open it without readOnly to append`);
    const clusters = inputs.flatMap((i) => (typeof i === 'string' ? parseClusters(i, { maxDepth: this.limits.maxDepth }) : [i]));
    const texts = this.validateBatch(clusters);
    if (this.options.parseCheck) {
      for (let i = 0; i < clusters.length; i++) await runHook(this.options.parseCheck, texts[i]!, clusters[i]!.id);
    }
    return guardIo(this.path, () => withLock(this.lockPath, this.options.lock ?? {}, () => this.writeLocked(clusters, texts)));
  }

  /** Runs under the lock: catch up with other writers, refuse known ids, append, fsync. */
  private writeLocked(clusters: readonly MemoryCluster[], texts: readonly string[]): AppendResult {
    const warnings = this.load(true);
    this.rejectKnownIds(clusters);
    const data = Buffer.from(texts.join(''), 'utf8');
    const batch = clusters.length > 1;
    if (batch) writeIntent(this.intentPath, { from: this.knownBytes, bytes: data.length, records: clusters.length });
    const newSize = appendDurably(this.path, data, this.knownBytes);
    if (batch) removeIntent(this.intentPath);
    let line = this.knownLines;
    for (const c of clusters) {
      const lines = c.atoms.map((_, i) => line + 2 + i);
      this.snapshot.add({ id: c.id, atoms: [...c.atoms], lines });
      line += c.atoms.length + 2;
    }
    this.knownBytes = newSize;
    this.knownLines = line;
    this.identity = statFile(this.path);
    return { clusterIds: clusters.map((c) => c.id), bytesWritten: data.length, warnings };
  }

  private validateBatch(clusters: readonly MemoryCluster[]): string[] {
    return validateAppendBatch(clusters, this.limits);
  }

  private rejectKnownIds(clusters: readonly MemoryCluster[]): void {
    const clashes: string[] = [];
    for (const c of clusters) {
      for (const id of declaredIds(c, UNARY_PREDICATES)) {
        const at = this.snapshot.declaredIn(id);
        if (at !== undefined) clashes.push(`${id} (already declared in cluster ${this.snapshot.at(at).id})`);
      }
    }
    if (clashes.length > 0) {
      throw new MnemosError('conflict', `ids already in journal ${this.path}: ${clashes.slice(0, 5).join(', ')}; choose new ids`, { ids: clashes });
    }
  }

  /** Reads whatever was appended since the last read; with `repair`, truncates a torn tail. */
  private load(repair: boolean): string[] {
    const warnings: string[] = [];
    // Past `visibleEnd` lies a batch still being written, or one whose appender died part-way.
    const visibleEnd = this.settleBatch(repair, warnings);
    const st = statFile(this.path);
    const replaced = this.identity !== null && (st === null || st.dev !== this.identity.dev || st.ino !== this.identity.ino || st.size < this.knownBytes);
    if (replaced) {
      warnings.push(`journal ${this.path} was replaced or shortened outside this journal; reloaded from the start`);
      this.snapshot = new JournalSnapshot();
      this.knownBytes = 0;
      this.knownLines = 0;
      this.missingNewline = false;
    }
    if (st !== null && st.size !== this.knownBytes && (visibleEnd === null || visibleEnd > this.knownBytes)) {
      const read = readFrom(this.path, this.knownBytes).bytes;
      const bytes = visibleEnd === null ? read : read.subarray(0, visibleEnd - this.knownBytes);
      const scan = scanJournalBytes(bytes, { firstLine: this.knownLines + 1, maxDepth: this.limits.maxDepth });
      for (const c of scan.clusters) {
        const problems = clusterProblems(c, { limits: this.limits, isKnownId: (id) => this.snapshot.declaredIn(id) !== undefined });
        if (problems.length > 0) {
          const first = problems[0]!;
          throw new MnemosError('corrupt', `journal ${this.path}: stored cluster ${c.id} breaks the record rules: ${first.message}`, { clusterId: c.id, problems });
        }
        this.snapshot.add(c);
      }
      this.knownBytes += scan.completeBytes;
      this.knownLines += scan.completeLines;
      this.missingNewline = scan.missingFinalNewline;
      if (scan.torn) {
        const what = `${scan.torn.bytes} bytes at line ${scan.torn.line}${scan.torn.recordId ? ` (record ${scan.torn.recordId}, never completed)` : ''}`;
        if (repair) {
          truncateDurably(this.path, this.knownBytes);
          warnings.push(`journal ${this.path}: removed a torn tail of ${what}; an append was interrupted before it finished`);
        } else {
          warnings.push(`journal ${this.path}: skipped an incomplete tail of ${what}; an append is in progress or was interrupted`);
        }
      }
    }
    if (this.missingNewline && repair) {
      // The next record must start on a line of its own; the complete last record stays.
      this.knownBytes = appendDurably(this.path, Buffer.from('\n'), this.knownBytes);
      this.knownLines++;
      this.missingNewline = false;
      warnings.push(`journal ${this.path}: the last record (${this.snapshot.size > 0 ? this.snapshot.at(this.snapshot.size - 1).id : 'unknown'}) had no final newline; added it`);
    }
    this.identity = statFile(this.path);
    this.allWarnings.push(...warnings);
    return warnings;
  }

  /**
   * A batch intent left behind: under the lock (`repair`), a batch wholly on
   * disk is kept and one cut short is removed whole; the intent goes either
   * way. Without the lock it may be a live append: its bytes stay unread.
   * Returns where readable bytes end (null: the whole file).
   */
  private settleBatch(repair: boolean, warnings: string[]): number | null {
    const intent = readIntent(this.intentPath);
    if (intent === null) {
      // One cut short while it was written: the append never began.
      if (repair && existsSync(this.intentPath)) removeIntent(this.intentPath);
      return null;
    }
    const size = statFile(this.path)?.size ?? 0;
    const whole = size >= intent.from + intent.bytes;
    if (!repair) return whole ? null : intent.from;
    if (!whole && size > intent.from) {
      truncateDurably(this.path, intent.from);
      warnings.push(`journal ${this.path}: removed ${size - intent.from} bytes of a batch of ${intent.records} records whose append was interrupted; none of the batch was kept`);
    }
    removeIntent(this.intentPath);
    return null;
  }
}

async function runHook(hook: ParseCheckHook, text: string, id: string): Promise<void> {
  try {
    await hook(text, id);
  } catch (err) {
    if (MnemosError.is(err)) throw err;
    throw new MnemosError('validation_failed', `parse-check hook rejected cluster ${id}: ${(err as Error)?.message ?? String(err)}`, { clusterId: id }, { cause: err });
  }
}

/**
 * The checks an append makes before it touches the file (every rule, ids
 * unique within the batch), returning the canonical texts. Exported so a
 * caller that must create things first (the CLI makes the journal's folder)
 * can refuse bad input before creating anything; ids already in the journal
 * are checked later, under the lock.
 */
export function validateAppendBatch(clusters: readonly MemoryCluster[], limits: JournalLimits = DEFAULT_LIMITS): string[] {
  if (clusters.length === 0) throw new MnemosError('validation_failed', 'nothing to append: no MemoryCluster records given');
  const batchIds = new Set<string>();
  const problems: ValidationProblem[] = [];
  for (const c of clusters) {
    problems.push(...clusterProblems(c, { limits, isKnownId: (id) => batchIds.has(id) }));
    for (const id of declaredIds(c, UNARY_PREDICATES)) batchIds.add(id);
  }
  if (problems.length > 0) throw invalidCluster(clusters.length === 1 ? clusters[0]!.id : `batch of ${clusters.length}`, problems);
  return clusters.map(clusterText);
}

/** File-system failures (permissions, a missing directory) become `unavailable` errors naming the journal. */
async function guardIo<T>(path: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw asJournalError(path, err);
  }
}

/** Whether `path` is a folder; any other answer (missing, unreadable) is left to the read, which says it. */
function isFolder(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/**
 * A journal path that names a folder is the caller's mistake: it was
 * `unavailable` with Node's "EISDIR: illegal operation on a directory".
 */
function folderError(path: string, cause?: unknown): MnemosError {
  const example = `${path.replace(/[\\/]+$/, '')}/journal.metta`;
  return new MnemosError('validation_failed', `${path} cannot be a journal: it is a folder (a journal is a file in it, such as ${example})`, { field: 'journal', path }, cause === undefined ? undefined : { cause });
}

/**
 * A journal path under a regular file (`notes.txt/journal.metta`) can never
 * be created: reads said "no journal yet" (the file only looked missing) and
 * an append was `unavailable` with Node's ENOTDIR. Names the file in the way.
 */
function underFileError(path: string, cause?: unknown): MnemosError {
  let up = dirname(path);
  // The nearest ancestor that exists is the file in the way (walking stops at the root).
  while (dirname(up) !== up && !exists(up)) up = dirname(up);
  return new MnemosError('validation_failed', `${path} cannot be a journal: a part of its folder path is a file (${up}; ENOTDIR)`, { field: 'journal', path }, cause === undefined ? undefined : { cause });
}

/** Whether `path` exists; a path under a file does not (stat throws ENOTDIR even with throwIfNoEntry off). */
function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether `path` lies under something that is not a folder: the path cannot exist, and it is not merely missing. */
function isUnderFile(path: string): boolean {
  try {
    statSync(path);
    return false;
  } catch (err) {
    return (err as { code?: string } | null)?.code === 'ENOTDIR';
  }
}

/** Refuses a path that can never hold a journal (a folder, or under a file) before any read or lock. */
export function assertJournalPath(path: string): void {
  if (isFolder(path)) throw folderError(path);
  if (isUnderFile(path)) throw underFileError(path);
}

function asJournalError(path: string, err: unknown): MnemosError {
  if (MnemosError.is(err)) return err;
  if ((err as { code?: string } | null)?.code === 'EISDIR') return folderError(path, err);
  if ((err as { code?: string } | null)?.code === 'ENOTDIR') return underFileError(path, err);
  return new MnemosError('unavailable', `journal ${path}: ${(err as Error)?.message ?? String(err)}`, { path }, { cause: err });
}
