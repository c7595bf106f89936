import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { identityDigest, legacyStoreIdentities, stateDir, storeIdentity } from './state-dir.ts';
import { adoptLegacyStateFile, stateFileInPlace } from './state-files.ts';
import { MnemosError } from '../domain/errors.ts';
import { AgentMemoryBridge } from '../journal/bridge.ts';
import { clusterText } from '../journal/cluster.ts';
import { assertJournalPath, Journal } from '../journal/journal.ts';
import { QUERY_KINDS, queryClusters, type JournalQueryKind } from '../journal/query.ts';
import { DEFAULT_QUERY_LIMIT } from '../journal/schema.ts';
import { JournalSnapshot } from '../journal/snapshot.ts';
import { charCount } from '../domain/unicode.ts';
import { auditViewBounded } from '../journal/views/audit-view.ts';
import type { BoundedText } from '../journal/views/bounded.ts';
import { indexViewBounded } from '../journal/views/index-view.ts';
import { plnSafeViewBounded } from '../journal/views/pln-view.ts';
import { promptViewBounded } from '../journal/views/prompt-view.ts';
import type { ServiceContext } from './context.ts';

/**
 * Read-only access to a MeTTa journal for the surfaces: the CLI passes an
 * explicit path, the agent tools read the engine's journal
 * (`config.journalPath`). Reads never lock, never repair and never create
 * the file; a missing journal is an empty result with a message, because
 * "no journal yet" is a normal state of a fresh store, not an error.
 */

export const VIEW_KINDS = ['audit', 'index', 'prompt', 'pln-safe'] as const;
export type JournalViewKind = (typeof VIEW_KINDS)[number];


export interface JournalQueryInput {
  by: JournalQueryKind;
  value: string;
  limit?: number;
}

export interface JournalQueryResult {
  journal: string;
  exists: boolean;
  by: JournalQueryKind;
  value: string;
  count: number;
  clusters: Array<{ id: string; text: string }>;
  /** True when more clusters match than `limit` let through. */
  more: boolean;
  warnings: string[];
  message?: string;
}

export interface JournalViewInput {
  kind: JournalViewKind;
  maxChars?: number;
  topics?: string[];
  statuses?: string[];
}

export interface JournalViewResult {
  journal: string;
  exists: boolean;
  kind: JournalViewKind;
  /** Clusters in the journal (all of them, not only those shown). */
  clusters: number;
  chars: number;
  text: string;
  /** True when maxChars left records or lines out; `shown` counts the units kept (records for audit, lines for the others). */
  truncated: boolean;
  shown: number;
  warnings: string[];
  message?: string;
}

/**
 * The engine's journal of one namespace: `config.journalPath` when set (the
 * one who configured it chose it for every namespace the handle serves),
 * else a file in the store's state directory. Each namespace has its own:
 * the owner of a second namespace read the first's journal, owner-only
 * memory text included. The default namespace of a SQLite file keeps
 * `journal.metta` beside it; another namespace gets `journal.<ns>.metta`.
 * A server database's state directory is ./.mnemos, which every schema and
 * database served from there shares, so its names carry the store's
 * identity too: `journal.<digest>.metta`, `journal.<digest>.<ns>.metta`,
 * where the identity is the one the store keeps in its data (state-dir.ts).
 *
 * A journal an earlier version named by the URL is renamed to this name on
 * first use; two journals of one store under different names are refused
 * with `conflict` (state-files.ts). `inPlace` only says where the journal
 * is now, renaming and refusing nothing (self_state's reports).
 */
export function journalPathOf(ctx: ServiceContext, namespace: string, opts: { inPlace?: boolean } = {}): string {
  if (ctx.config.journalPath) return ctx.config.journalPath;
  const server = ctx.store.location.includes('://');
  const named = (identity: string | null): string => {
    const parts = ['journal', ...(identity ? [identityDigest(identity)] : []), ...(namespace === 'default' ? [] : [namespace]), 'metta'];
    return join(stateDir(ctx.store.location), parts.join('.'));
  };
  const path = named(server ? storeIdentity(ctx.store) : null);
  const legacy = server ? legacyStoreIdentities(ctx.store).map(named) : [];
  return opts.inPlace ? stateFileInPlace(path, legacy, JOURNAL_COMPANIONS) : adoptLegacyStateFile(path, legacy, JOURNAL_COMPANIONS);
}

/** Files that go with a journal and move with it (journal.ts: the batch intent; the lock is per use and is not moved). */
const JOURNAL_COMPANIONS = ['.batch'];

/** Opens read-only; null when the file does not exist. */
export async function openJournalForRead(path: string): Promise<Journal | null> {
  // A path under a file does not exist either, but it is a mistake, not a journal yet to come.
  assertJournalPath(path);
  if (!existsSync(path)) return null;
  return Journal.open(path, { readOnly: true });
}

export function missingMessage(path: string): string {
  return `no journal at ${path} yet; it is created by the first \`mnemos journal append ${path} <cluster-file>\``;
}

/** A library caller's input is not typed at run time: null or a string reached the checks as a TypeError. */
function assertObject(v: unknown, what: string): void {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new MnemosError('validation_failed', `give the ${what} as an object`, { field: '(input)' });
}

export async function queryJournalFile(path: string, q: JournalQueryInput): Promise<JournalQueryResult> {
  assertObject(q, 'journal query');
  checkQuery(q);
  const journal = await openJournalForRead(path);
  const base = { journal: path, by: q.by, value: q.value };
  if (!journal) return { ...base, exists: false, count: 0, clusters: [], more: false, warnings: [], message: missingMessage(path) };
  // One past the limit, to say whether the limit left some out.
  const limit = q.limit ?? DEFAULT_QUERY_LIMIT;
  const found = queryClusters(journal.view(), { kind: q.by, value: q.value, limit: limit + 1 });
  const shown = found.slice(0, limit);
  const more = found.length > limit;
  return {
    ...base,
    exists: true,
    count: shown.length,
    clusters: shown.map((c) => ({ id: c.id, text: clusterText(c) })),
    more,
    warnings: [...journal.warnings],
    ...(more ? { message: `more than ${limit} clusters match; showing the first ${limit} in journal order (raise limit to see more)` } : {}),
  };
}

export async function viewJournalFile(path: string, v: JournalViewInput): Promise<JournalViewResult> {
  assertObject(v, 'journal view');
  if (!(VIEW_KINDS as readonly string[]).includes(v.kind)) throw new MnemosError('validation_failed', `unknown view kind ${JSON.stringify(v.kind)}; use one of ${VIEW_KINDS.join(', ')}`, { field: 'kind' });
  const journal = await openJournalForRead(path);
  if (!journal) {
    renderView(new JournalSnapshot(), v); // still reject a bad bound on an empty journal
    return { journal: path, exists: false, kind: v.kind, clusters: 0, chars: 0, text: '', truncated: false, shown: 0, warnings: [], message: missingMessage(path) };
  }
  const { text, included, truncated } = renderView(journal.view(), v);
  const unit = v.kind === 'audit' ? 'records' : 'lines';
  return {
    journal: path,
    exists: true,
    kind: v.kind,
    clusters: journal.view().size,
    chars: charCount(text),
    text,
    truncated,
    shown: included,
    warnings: [...journal.warnings],
    // The budget cut between whole units: say so, or an empty text read as an empty journal.
    ...(truncated ? { message: `cut at maxChars ${v.maxChars}: ${included} ${unit} shown, ${v.kind === 'audit' ? 'the newest that fit; older ones' : 'more'} left out; raise maxChars to see them` } : {}),
  };
}

export function renderView(snapshot: JournalSnapshot, v: JournalViewInput): BoundedText {
  const bound = v.maxChars !== undefined ? { maxChars: v.maxChars } : {};
  switch (v.kind) {
    case 'audit':
      return auditViewBounded(snapshot.clusters(), bound);
    case 'index':
      return indexViewBounded(snapshot, bound);
    case 'prompt':
      return promptViewBounded(snapshot.clusters(), { ...bound, ...(v.topics ? { topics: v.topics } : {}), ...(v.statuses ? { statuses: v.statuses } : {}) });
    case 'pln-safe':
      return plnSafeViewBounded(snapshot.clusters(), bound);
  }
}

/**
 * The agent bridge over the engine's journal with the configured flags
 * (both reads default off; autonomous writes cannot be turned on). The
 * journal is read once here; a missing one reads as empty.
 */
export async function engineJournalBridge(ctx: ServiceContext, namespace: string): Promise<AgentMemoryBridge> {
  const journal = await openJournalForRead(journalPathOf(ctx, namespace));
  const snapshot = journal ? journal.view() : new JournalSnapshot();
  const flags: { promptViewReads?: boolean; indexViewReads?: boolean; autonomousWrites?: unknown } = ctx.config.journalBridge ?? {};
  return new AgentMemoryBridge({
    source: () => snapshot,
    // autonomousWrites is passed through so a config asking for it fails loudly in the bridge constructor.
    flags: { promptViewReads: flags.promptViewReads === true, indexViewReads: flags.indexViewReads === true, autonomousWrites: flags.autonomousWrites === true },
    now: () => new Date(ctx.now()),
  });
}

function checkQuery(q: JournalQueryInput): void {
  if (!(QUERY_KINDS as readonly string[]).includes(q.by)) throw new MnemosError('validation_failed', `unknown query kind ${JSON.stringify(q.by)}; use one of ${QUERY_KINDS.join(', ')}`, { field: 'by' });
  if (q.limit !== undefined && !(Number.isInteger(q.limit) && q.limit >= 0)) throw new MnemosError('validation_failed', `query limit must be a non-negative integer, got ${q.limit}`, { field: 'limit' });
}
