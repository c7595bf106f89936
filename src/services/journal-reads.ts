import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir } from './state-dir.ts';
import { MnemosError } from '../domain/errors.ts';
import { AgentMemoryBridge } from '../journal/bridge.ts';
import { clusterText } from '../journal/cluster.ts';
import { Journal } from '../journal/journal.ts';
import { QUERY_KINDS, queryClusters, type JournalQueryKind } from '../journal/query.ts';
import { JournalSnapshot } from '../journal/snapshot.ts';
import { auditView } from '../journal/views/audit-view.ts';
import { indexView } from '../journal/views/index-view.ts';
import { plnSafeView } from '../journal/views/pln-view.ts';
import { promptView } from '../journal/views/prompt-view.ts';
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
  clusters: number;
  chars: number;
  text: string;
  warnings: string[];
  message?: string;
}

/** The engine's journal: configured, else next to a SQLite file, else ./.mnemos/journal.metta. */
export function journalPathOf(ctx: ServiceContext): string {
  if (ctx.config.journalPath) return ctx.config.journalPath;
  return join(stateDir(ctx.store.location), 'journal.metta');
}

/** Opens read-only; null when the file does not exist. */
export async function openJournalForRead(path: string): Promise<Journal | null> {
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
  if (!journal) return { ...base, exists: false, count: 0, clusters: [], warnings: [], message: missingMessage(path) };
  const found = queryClusters(journal.view(), { kind: q.by, value: q.value, ...(q.limit !== undefined ? { limit: q.limit } : {}) });
  return { ...base, exists: true, count: found.length, clusters: found.map((c) => ({ id: c.id, text: clusterText(c) })), warnings: [...journal.warnings] };
}

export async function viewJournalFile(path: string, v: JournalViewInput): Promise<JournalViewResult> {
  assertObject(v, 'journal view');
  if (!(VIEW_KINDS as readonly string[]).includes(v.kind)) throw new MnemosError('validation_failed', `unknown view kind ${JSON.stringify(v.kind)}; use one of ${VIEW_KINDS.join(', ')}`, { field: 'kind' });
  const journal = await openJournalForRead(path);
  if (!journal) {
    renderView(new JournalSnapshot(), v); // still reject a bad bound on an empty journal
    return { journal: path, exists: false, kind: v.kind, clusters: 0, chars: 0, text: '', warnings: [], message: missingMessage(path) };
  }
  const text = renderView(journal.view(), v);
  return { journal: path, exists: true, kind: v.kind, clusters: journal.view().size, chars: text.length, text, warnings: [...journal.warnings] };
}

export function renderView(snapshot: JournalSnapshot, v: JournalViewInput): string {
  const bound = v.maxChars !== undefined ? { maxChars: v.maxChars } : {};
  switch (v.kind) {
    case 'audit':
      return auditView(snapshot.clusters(), bound);
    case 'index':
      return indexView(snapshot, bound);
    case 'prompt':
      return promptView(snapshot.clusters(), { ...bound, ...(v.topics ? { topics: v.topics } : {}), ...(v.statuses ? { statuses: v.statuses } : {}) });
    case 'pln-safe':
      return plnSafeView(snapshot.clusters(), bound);
  }
}

/**
 * The agent bridge over the engine's journal with the configured flags
 * (both reads default off; autonomous writes cannot be turned on). The
 * journal is read once here; a missing one reads as empty.
 */
export async function engineJournalBridge(ctx: ServiceContext): Promise<AgentMemoryBridge> {
  const journal = await openJournalForRead(journalPathOf(ctx));
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
}
