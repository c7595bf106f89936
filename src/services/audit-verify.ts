import { MnemosError } from '../domain/errors.ts';
import { verifyChainSegment, type ChainProblem } from '../domain/audit.ts';
import { sha256Hex } from '../domain/hash.ts';
import type { Principal } from '../domain/principal.ts';
import { initialLifecycle, onRecall } from '../domain/lifecycle.ts';
import type { Lifecycle, Memory } from '../domain/memory.ts';
import { claimsHash } from '../domain/memory-claims.ts';
import type { MemoryContent, RecordedWrite } from '../ports/store.ts';
import type { ServiceContext } from './context.ts';

export interface MemoryProblem {
  memoryId: string;
  problem: 'text_changed' | 'hash_differs_from_audit' | 'claims_changed' | 'not_in_audit_log' | 'missing_from_store' | 'read_only_state_changed';
  message: string;
}

export interface AuditReport {
  ok: boolean;
  /** The chain is the whole store's; the memories checked against it are this namespace's. */
  namespace: string;
  entries: number;
  /** The newest entry: keep it, and pass it as expectHead (`--expect-head seq:hash`) to a later check. */
  head: { seq: number; hash: string } | null;
  memoriesChecked: number;
  /** The first MAX_REPORTED problems of each kind; `problemsFound` counts them all. */
  chainProblems: ChainProblem[];
  memoryProblems: MemoryProblem[];
  problemsFound: { chain: number; memories: number };
}

const PAGE = 2000;
const MAX_REPORTED = 100;

export interface AuditProgress {
  phase: 'chain' | 'memories' | 'done';
  done: number;
  /** Entries in the chain (its head's sequence number) while checking it; memories are not counted ahead, so 0. */
  total: number;
}

export interface VerifyOptions {
  onProgress?: (x: AuditProgress) => void;
  /**
   * A head an earlier check printed. A chain whose newest entries were cut
   * off is still a valid chain, so only a remembered head shows the loss:
   * the chain must still hold that entry, with that hash.
   */
  expectHead?: { seq: number; hash: string };
}

/**
 * Checks the hash chain end to end, then every stored memory against it: a
 * text edited in the database no longer matches its content hash, and a hash
 * edited to match no longer matches what the audit log recorded. Then the
 * chain against the store: a version it recorded that is gone without a
 * forget entry was deleted behind the engine's back.
 *
 * Both passes go a page at a time and keep nothing between pages but the
 * last entry and the first problems found: a first version kept every
 * memory's recorded hash in one map, 905 MB at a million memories. Each page
 * of memories looks up its own audit entries by memory id (an index on both
 * backends); the chain pass has already vouched for those entries.
 */
export async function verifyAudit(ctx: ServiceContext, p: Principal, opts: VerifyOptions = {}): Promise<AuditReport> {
  const expected = opts.expectHead;
  if (expected !== undefined && !(expected && Number.isInteger(expected.seq) && expected.seq >= 1 && typeof expected.hash === 'string' && /^[0-9a-f]{64}$/.test(expected.hash))) {
    throw new MnemosError('validation_failed', 'expectHead must be {seq, hash} as an earlier check returned it in head', { field: 'expectHead' });
  }
  const chainProblems: ChainProblem[] = [];
  let expectedFound = false;
  const head = await ctx.store.audit.head();
  let chainFound = 0;
  let prev: { seq: number; hash: string } | null = null;
  let entries = 0;
  for (;;) {
    const page = await ctx.store.audit.range(p, prev?.seq ?? 0, PAGE);
    if (page.length === 0) break;
    for (const problem of verifyChainSegment(prev, page)) if (chainFound++ < MAX_REPORTED) chainProblems.push(problem);
    if (expected && !expectedFound) expectedFound = page.some((e) => e.seq === expected.seq && e.hash === expected.hash);
    entries += page.length;
    const last = page[page.length - 1]!;
    prev = { seq: last.seq, hash: last.hash };
    opts.onProgress?.({ phase: 'chain', done: entries, total: Math.max(head?.seq ?? 0, entries) });
  }
  if (expected && !expectedFound) {
    chainFound++;
    chainProblems.push({ seq: expected.seq, problem: 'head_missing', message: `entry ${expected.seq} with hash ${expected.hash} that an earlier check saw is not in the chain: its newest entries were removed or rewritten` });
  }
  const memoryProblems: MemoryProblem[] = [];
  let memoriesChecked = 0;
  let problemsFound = 0;
  let after: string | null = null;
  for (;;) {
    const page = await ctx.store.scanContent(p, after, PAGE);
    if (page.length === 0) break;
    const recorded = await ctx.store.audit.recordedHashes(p, page.map((m) => m.id));
    // Whole rows only where an entry recorded claims to check them against:
    // decoding every row tripled the time at a million memories.
    const claimed = page.filter((m) => recorded.get(m.id)?.claims != null).map((m) => m.id);
    const rows = new Map((await ctx.store.getMany(p, claimed)).map((m) => [m.id, m]));
    const hidden = await hiddenReadOnly(ctx, p, [...rows.values()]);
    for (const m of page) {
      memoriesChecked++;
      const problem = checkMemory(m, recorded, rows.get(m.id)) ?? hidden.get(m.id) ?? null;
      if (problem && problemsFound++ < MAX_REPORTED) memoryProblems.push(problem);
    }
    after = page[page.length - 1]!.id;
    opts.onProgress?.({ phase: 'memories', done: memoriesChecked, total: 0 });
  }
  // The other way round: every version the log says was written is stored, or a forget entry in the chain removed it.
  for (let afterId: string | null = null; ; ) {
    const ids = await ctx.store.audit.unstoredWrites(p, afterId, PAGE);
    if (ids.length === 0) break;
    const forgotten = await forgottenByTheChain(ctx, p, ids);
    for (const id of ids) {
      if (forgotten.has(id)) continue;
      const problem: MemoryProblem = { memoryId: id, problem: 'missing_from_store', message: `memory ${id}: the audit log recorded it and no forget, but the store no longer has it` };
      if (problemsFound++ < MAX_REPORTED) memoryProblems.push(problem);
    }
    afterId = ids[ids.length - 1]!;
  }
  opts.onProgress?.({ phase: 'done', done: memoriesChecked, total: memoriesChecked });
  return {
    ok: chainProblems.length === 0 && memoryProblems.length === 0,
    namespace: p.namespace,
    entries,
    head: await ctx.store.audit.head(),
    memoriesChecked,
    chainProblems,
    memoryProblems,
    problemsFound: { chain: chainFound, memories: problemsFound },
  };
}

/**
 * Which of these versions a forget entry of the chain names. A version's
 * writing entries name its lineage; the lineage's forget entry lists the
 * versions it removed. (The tombstone tables are not asked: they are rows an
 * editor of the file could add as easily as delete a memory.)
 */
async function forgottenByTheChain(ctx: ServiceContext, p: Principal, ids: string[]): Promise<Set<string>> {
  const lineages = new Set<string>(ids);
  for (const e of await ctx.store.audit.forMemories(p, ids)) {
    const lineageId = (e.details as { lineageId?: unknown }).lineageId;
    if (typeof lineageId === 'string') lineages.add(lineageId);
  }
  const forgotten = new Set<string>();
  for (const e of await ctx.store.audit.forMemories(p, [...lineages])) {
    if (e.action !== 'forget') continue;
    const versionIds = (e.details as { versionIds?: unknown }).versionIds;
    if (Array.isArray(versionIds)) for (const v of versionIds) if (typeof v === 'string') forgotten.add(v);
  }
  return forgotten;
}

/**
 * Read-only versions (safety episodes among them) closed, archived or
 * expired with no audit entry that did it. The claims hash leaves out what
 * changes in place (closing, lifecycle), so setting `superseded_at` or
 * `lifecycle = 'expired'` in the database hid a SafetyAudit episode from every
 * listing while the check said intact. The engine never closes a read-only
 * version (update and retire refuse it), and the lifecycle engine leaves it
 * alone except that a recall activates it; anything else needs its entry:
 * a `supersede` of the version, or a new version's entry naming it as
 * previous, and a `lifecycle` entry to the state it is in.
 */
async function hiddenReadOnly(ctx: ServiceContext, p: Principal, rows: readonly Memory[]): Promise<Map<string, MemoryProblem>> {
  const out = new Map<string, MemoryProblem>();
  const suspects = rows.filter((m) => m.readOnly && (m.supersededAt !== null || !untouchedLifecycles(m).includes(m.lifecycle)));
  if (suspects.length === 0) return out;
  const ids = new Set<string>();
  for (const m of suspects) {
    ids.add(m.id);
    if (m.supersededBy) ids.add(m.supersededBy);
  }
  const entries = await ctx.store.audit.forMemories(p, [...ids]);
  for (const m of suspects) {
    const own = entries.filter((e) => e.memoryId === m.id);
    if (m.supersededAt !== null) {
      const closedBy = own.some((e) => e.action === 'supersede') || entries.some((e) => e.memoryId === m.supersededBy && (e.action === 'update' || e.action === 'supersede') && (e.details as { previousId?: unknown }).previousId === m.id);
      if (!closedBy) {
        out.set(m.id, { memoryId: m.id, problem: 'read_only_state_changed', message: `memory ${m.id} is read-only (${m.labels.join(', ') || 'protected'}) yet closed at ${m.supersededAt}, and no audit entry closed it: changed behind the engine's back` });
        continue;
      }
    }
    if (!untouchedLifecycles(m).includes(m.lifecycle)) {
      const last = own.filter((e) => e.action === 'lifecycle').at(-1);
      if ((last?.details as { to?: unknown } | undefined)?.to !== m.lifecycle) {
        out.set(m.id, { memoryId: m.id, problem: 'read_only_state_changed', message: `memory ${m.id} is read-only (${m.labels.join(', ') || 'protected'}) yet ${m.lifecycle}, and no audit entry moved it there: changed behind the engine's back` });
      }
    }
  }
  return out;
}

/** The lifecycles a read-only version has without a lifecycle entry: its first, and the one a recall gives it. */
function untouchedLifecycles(m: Memory): Lifecycle[] {
  const first = initialLifecycle(m.type);
  return [first, onRecall(first)];
}

/** `whole` is the version's row, read when its entry recorded claims; a version forgotten since the content was read has none and is not a problem. */
function checkMemory(m: MemoryContent, recorded: Map<string, RecordedWrite>, whole: Memory | undefined): MemoryProblem | null {
  if (sha256Hex(m.text) !== m.contentHash) return { memoryId: m.id, problem: 'text_changed', message: `memory ${m.id}: stored text no longer matches its content hash` };
  const write = recorded.get(m.id);
  if (!write) return { memoryId: m.id, problem: 'not_in_audit_log', message: `memory ${m.id} has no creating entry in the audit log` };
  if (write.hash !== m.contentHash) return { memoryId: m.id, problem: 'hash_differs_from_audit', message: `memory ${m.id}: content differs from what the audit log recorded` };
  // Entries written before the log recorded claims vouch for the text only.
  if (write.claims !== null && whole !== undefined && write.claims !== claimsHash(whole)) {
    return { memoryId: m.id, problem: 'claims_changed', message: `memory ${m.id}: its labels, flags, metadata, scope or times differ from what the audit log recorded` };
  }
  return null;
}
