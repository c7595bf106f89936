import { openStore, DEFAULT_DB_PATH } from '../../adapters/open-store.ts';
import { localOwner, assertPrincipal, withArticle, type Principal } from '../../domain/principal.ts';
import type { MemoryStore } from '../../ports/store.ts';
import type { MigrationProgressListener } from '../../ports/migration-progress.ts';
import { analyze, analyzeQuery } from '../../retrieval/text/analyze.ts';
import { verifyAudit, type VerifyOptions } from '../../services/audit-verify.ts';
import { DEFAULT_CONFIG, checkEngineConfig, type EngineConfig, type ServiceContext } from '../../services/context.ts';
import { applyEdit, confirmEdit, previewEdit } from '../../services/edit.ts';
import { exportJsonl } from '../../services/export.ts';
import { exportMetta } from '../../services/export-metta.ts';
import { engineJournalBridge, journalPathOf, queryJournalFile, viewJournalFile, type JournalQueryInput, type JournalViewInput } from '../../services/journal-reads.ts';
import { MnemosError } from '../../domain/errors.ts';
import { checkOptions } from '../../domain/option-object.ts';
import { confirmForget, previewForget } from '../../services/forget.ts';
import { history } from '../../services/history.ts';
import { importFile, type ImportOptions } from '../../services/import/import-file.ts';
import type { ListInput, MemoryPatch, RememberInput, SearchInput } from '../../services/inputs.ts';
import { listMemories, readMemory, remember, type SourcePolicy } from '../../services/memories.ts';
import { runSearch, searchMemories, type SearchMode } from '../../services/search.ts';
import { status } from '../../services/status.ts';
import { deepRecall, type DeepRecallInput } from '../../services/deep-recall.ts';
import { ingestTranscript, type TranscriptInput } from '../../services/ingest-transcript.ts';
import { recallRange, type RecallRangeInput } from '../../services/recall-range.ts';
import { selfState, type SelfStateExtras } from '../../services/self-state.ts';
import { readSourceLines, type SourceLinesInput } from '../../services/source-lines.ts';
import { ensureOwnerToken } from '../../services/owner-token.ts';
import { authenticate, createToken, listTokens, revokeToken, type CreateTokenInput } from '../../services/tokens.ts';
import { LifecycleApi } from '../../lifecycle/api.ts';
import { CycleApi } from '../../services/cycle/cycle-api.ts';
import { backfillEmbeddings, prepareVectorIndex, type BackfillProgress } from '../../services/embeddings.ts';
import { configureLifecycle, type LifecycleConfig } from '../../lifecycle/config.ts';
import { SearchThreads, type SearchThreadsOpen } from './search-threads.ts';
import { checkOpenOptions } from './open-options.ts';
import type { ConsolidateOptions } from '../../lifecycle/consolidate.ts';

export interface OpenMemoryOptions {
  /** SQLite file path (default ./.mnemos/memory.db) or a postgres:// URL. */
  db?: string;
  /** The principal this handle acts as (default: the local owner of namespace "default"). */
  principal?: Principal;
  config?: Partial<EngineConfig>;
  /** Clock override for tests. */
  now?: () => number;
  /** Memory lifecycle settings (consolidation interval, labile window, retention...). */
  lifecycle?: Partial<LifecycleConfig>;
  /**
   * Hears how far the store's upgrade has got when the first open after an
   * upgrade runs a long migration (re-indexing texts): `{ migration, name,
   * done, total }`, done rising to total. Never called on an up-to-date store.
   */
  onProgress?: MigrationProgressListener;
}

/**
 * The library facade: a thin object over the services, bound to one
 * principal. `as(principal)` gives a handle for another caller on the same
 * store; surfaces (CLI, MCP, HTTP) use it per request.
 */
export class Mnemos {
  private constructor(
    private readonly shared: ServiceContext,
    readonly principal: Principal,
    private readonly owned: boolean,
  ) {}

  /** The services' context; after close, every call says so instead of failing inside the driver (a TypeError, "connection is not open"). */
  private get ctx(): ServiceContext {
    if (closed.has(this.shared)) throw new MnemosError('unavailable', 'this memory handle was closed; open the store again (openMemory) to use it');
    return this.shared;
  }

  static async open(given?: OpenMemoryOptions): Promise<Mnemos> {
    const opts = checkOpenOptions(given);
    const principal = opts.principal ?? localOwner();
    assertPrincipal(principal);
    const config: EngineConfig = { ...DEFAULT_CONFIG, ...opts.config };
    checkEngineConfig(config);
    // Checked before the store opens: a bad listener would otherwise fail inside the migration, after it began.
    if (opts.onProgress !== undefined && typeof opts.onProgress !== 'function') {
      throw new MnemosError('validation_failed', 'onProgress must be a function, called with { migration, name, done, total }', { field: 'onProgress' });
    }
    const store = await openStore(opts.db ?? DEFAULT_DB_PATH, { analyze, vectorIndex: config.vectorIndex, ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
    const ctx: ServiceContext = { store, now: opts.now ?? Date.now, analyzeQuery, config };
    configureLifecycle(ctx, opts.lifecycle);
    // What a search thread needs to open the same store the same way; none with an injected clock (threads keep real time).
    if (!opts.now) threads.set(ctx, { open: { db: opts.db ?? DEFAULT_DB_PATH, config, ...(opts.lifecycle ? { lifecycle: opts.lifecycle } : {}) }, pool: null });
    return new Mnemos(ctx, principal, true);
  }

  as(principal: Principal): Mnemos {
    assertPrincipal(principal);
    return new Mnemos(this.shared, principal, false);
  }

  get store(): MemoryStore {
    return this.ctx.store;
  }

  get context(): ServiceContext {
    return this.ctx;
  }

  async remember(input: RememberInput, policy?: SourcePolicy) {
    const [r] = await remember(this.ctx, this.principal, [input], policy);
    return r!;
  }

  async rememberMany(inputs: RememberInput[], policy?: SourcePolicy) {
    return remember(this.ctx, this.principal, inputs, policy);
  }

  async get(id: string) {
    return readMemory(this.ctx, this.principal, id);
  }

  async list(input: ListInput = {}) {
    return listMemories(this.ctx, this.principal, input);
  }

  /** Hybrid search (mode 'keyword' or 'vector' runs one list only, for comparison); on a search thread once `startSearchThreads` ran. */
  async search(input: (SearchInput & { mode?: SearchMode }) | string) {
    return runSearch(this.ctx, this.principal, typeof input === 'string' ? { query: input } : input);
  }

  /**
   * Runs every handle's searches from now on on `count` worker threads, each
   * with its own handle on this store (search-threads.ts); `close` stops
   * them. For servers: a search no longer holds up the event loop, and
   * several run at once on several cores. Each thread keeps its own copy of
   * the vectors it searches. Only the handle that opened the store may.
   */
  async startSearchThreads(count: number): Promise<number> {
    const entry = threads.get(this.ctx);
    if (!this.owned) throw new MnemosError('forbidden', 'only the handle that opened the store can start search threads');
    if (!entry) throw new MnemosError('unsupported', 'search threads keep real time: this store was opened with an injected clock');
    if (entry.pool) throw new MnemosError('conflict', `search threads are already running (${entry.pool.size})`);
    const pool = await SearchThreads.start(count, entry.open);
    entry.pool = pool;
    // Every search of this store goes to a thread, the engine's own too (context assembly, deep recall); with
    // every thread gone (each is replaced when it dies, so only briefly) the caller's thread answers.
    this.ctx.searchRunner = (p, input) => (pool.size > 0 ? pool.search(p, input) : searchMemories(this.ctx, p, input));
    return pool.size;
  }

  /** Whether the search threads have loaded what searches read (keyword index copy, vectors); false while they load or when none run. */
  get searchThreadsWarm(): boolean {
    return threads.get(this.shared)?.pool?.warm ?? false;
  }

  /** Search threads running (0 when searches run on the caller's thread). */
  get searchThreads(): number {
    return threads.get(this.shared)?.pool?.size ?? 0;
  }

  /** Applies an edit at once as a new version. Use previewUpdate/confirmUpdate for the two-step form. */
  async update(id: string, patch: MemoryPatch) {
    return applyEdit(this.ctx, this.principal, id, patch);
  }

  async previewUpdate(id: string, patch: MemoryPatch) {
    return previewEdit(this.ctx, this.principal, id, patch);
  }

  async confirmUpdate(token: string) {
    return confirmEdit(this.ctx, this.principal, token);
  }

  /** Step one of forgetting: what would be removed, and the token that confirms it. */
  async forget(id: string, reason?: string) {
    return previewForget(this.ctx, this.principal, id, reason);
  }

  async confirmForget(token: string) {
    return confirmForget(this.ctx, this.principal, token);
  }

  async history(id: string) {
    return history(this.ctx, this.principal, id);
  }

  async import(path: string, opts?: ImportOptions) {
    return importFile(this.ctx, this.principal, path, opts);
  }

  async export(write: (line: string) => void | Promise<void>) {
    return exportJsonl(this.ctx, this.principal, writer(write));
  }

  /** Every memory version as MemoryCluster records; fails naming a memory that would not fit losslessly. */
  async exportMetta(write: (text: string) => void | Promise<void>) {
    return exportMetta(this.ctx, this.principal, writer(write));
  }

  /** Where the engine's MeTTa journal of this handle's namespace lives (config journalPath or its default). */
  get journalPath(): string {
    return journalPathOf(this.ctx, this.principal.namespace);
  }

  /** Owner only: the journal is owner data. Whole clusters; a missing journal is an empty result. */
  async journalQuery(input: JournalQueryInput) {
    this.requireOwner('journal queries');
    return queryJournalFile(this.journalPath, input);
  }

  /** Owner only: a bounded audit, index, prompt or PLN-safe view of the journal. */
  async journalView(input: JournalViewInput) {
    this.requireOwner('journal views');
    return viewJournalFile(this.journalPath, input);
  }

  /** The agent bridge over the journal, with the configured read flags (default off); for the owner and agents, never guests. */
  async journalBridge() {
    if (this.principal.role === 'guest') throw new MnemosError('forbidden', 'the journal bridge is for the owner and agents; the journal is owner data and a guest reads none of it');
    return engineJournalBridge(this.ctx, this.principal.namespace);
  }

  private requireOwner(what: string): void {
    if (this.principal.role !== 'owner') throw new MnemosError('forbidden', `${what} are for the owner only; this is ${withArticle(this.principal.role)} principal`);
  }

  async status() {
    return status(this.ctx, this.principal);
  }

  /** Checks the audit chain and every memory against it; `onProgress` hears how far it got, a page at a time. */
  async verifyAudit(opts: VerifyOptions = {}) {
    return verifyAudit(this.ctx, this.principal, checkOptions(opts, 'verifyAudit options', { onProgress: 'function', expectHead: 'object' }));
  }

  /** Exact lines of a file that is the recorded source of a memory this principal can see. */
  async sourceLines(input: SourceLinesInput) {
    return readSourceLines(this.ctx, this.principal, input);
  }

  async recallRange(input: RecallRangeInput) {
    return recallRange(this.ctx, this.principal, input);
  }

  /** Owner only. */
  async deepRecall(input: DeepRecallInput) {
    return deepRecall(this.ctx, this.principal, input);
  }

  async ingestTranscript(input: TranscriptInput) {
    return ingestTranscript(this.ctx, this.principal, input);
  }

  selfState(extras?: SelfStateExtras) {
    return selfState(this.ctx, extras, this.principal);
  }

  /** Owner only; returns the secret once. */
  async createToken(input: CreateTokenInput) {
    return createToken(this.ctx, this.principal, input);
  }

  async listTokens() {
    return listTokens(this.ctx, this.principal);
  }

  async revokeToken(id: string) {
    return revokeToken(this.ctx, this.principal, id);
  }

  /** On a store without tokens, creates an owner token once and saves it to `file` (0600). */
  async ensureOwnerToken(file: string) {
    return ensureOwnerToken(this.ctx, this.principal, file);
  }

  /** The principal a bearer secret stands for (throws `unauthorized` with the reason). */
  async authenticate(secret: string | undefined | null) {
    return authenticate(this.ctx, secret);
  }

  /** Memory lifecycle: recall and correction, consolidation, the canonical ledger and pins, the knowledge graph. */
  get lifecycle(): LifecycleApi {
    return new LifecycleApi(this.ctx, this.principal);
  }

  /** One consolidation run now (owner only); what the scheduler calls. */
  async consolidate(opts?: ConsolidateOptions) {
    return this.lifecycle.consolidate(opts);
  }

  /** Gives every visible memory a vector of the current model; trains the built-in model first when asked or when there is none. */
  async embedBackfill(opts?: { retrain?: boolean; onProgress?: (x: BackfillProgress) => void }) {
    return backfillEmbeddings(this.ctx, this.principal, checkOptions(opts, 'embedBackfill options', { retrain: 'boolean', onProgress: 'function' }));
  }

  /** Brings this namespace's vector index up to date and waits for an approximate index to be built when one applies (`wait: false`: starts it only); says which index answers. */
  async prepareVectorIndex(opts: { wait?: boolean } = {}) {
    return prepareVectorIndex(this.ctx, this.principal, checkOptions(opts, 'prepareVectorIndex options', { wait: 'boolean' }));
  }

  /** Builds the store's in-process keyword index now where it keeps one (SQLite); searches never wait for it. */
  async prepareKeywordSearch(): Promise<void> {
    await this.ctx.store.prepareKeywordSearch?.();
  }

  /** Brings the search copies this handle already holds up to date with the store (search threads, between searches). */
  async refreshSearchCaches(): Promise<void> {
    await this.ctx.store.refreshSearchCaches?.();
  }

  /** This principal's cognitive cycle (seed 000): blackboard, tick, status, recent episodes. */
  cycle(): CycleApi {
    return new CycleApi(this.ctx, this.principal);
  }

  /** Closes the store; only the handle that opened it may. */
  async close(): Promise<void> {
    if (!this.owned || closed.has(this.shared)) return;
    const ctx = this.shared;
    closed.add(ctx);
    const entry = threads.get(ctx);
    if (entry?.pool) {
      const pool = entry.pool;
      entry.pool = null;
      delete ctx.searchRunner;
      await pool.close();
    }
    await ctx.cycles?.close();
    await ctx.store.close();
    // Whatever still holds this context (a lifecycle or cycle handle kept from before, a scheduler's
    // timer) gets the same clear refusal on its next read instead of the driver's TypeError.
    ctx.store = closedStore();
  }
}

function closedStore(): MemoryStore {
  return new Proxy({} as MemoryStore, {
    get(_target, property) {
      if (property === 'then') return undefined; // not a promise
      throw new MnemosError('unavailable', 'this memory handle was closed; open the store again (openMemory) to use it');
    },
  });
}

function writer<F>(write: F): F {
  if (typeof write !== 'function') throw new MnemosError('validation_failed', 'give export a function that receives each line', { field: 'write' });
  return write;
}

/** Stores whose opening handle was closed: every handle on them refuses further calls. */
const closed = new WeakSet<ServiceContext>();

/** Per store handle: how to open it again, and its search threads once started. */
const threads = new WeakMap<ServiceContext, { open: SearchThreadsOpen; pool: SearchThreads | null }>();

export function openMemory(opts?: OpenMemoryOptions): Promise<Mnemos> {
  return Mnemos.open(opts);
}
