import { verifyChainSegment, type ChainProblem } from '../domain/audit.ts';
import { sha256Hex } from '../domain/hash.ts';
import type { Principal } from '../domain/principal.ts';
import type { MemoryContent } from '../ports/store.ts';
import type { ServiceContext } from './context.ts';

export interface MemoryProblem {
  memoryId: string;
  problem: 'text_changed' | 'hash_differs_from_audit' | 'not_in_audit_log';
  message: string;
}

export interface AuditReport {
  ok: boolean;
  entries: number;
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

/**
 * Checks the hash chain end to end, then every stored memory against it: a
 * text edited in the database no longer matches its content hash, and a hash
 * edited to match no longer matches what the audit log recorded.
 *
 * Both passes go a page at a time and keep nothing between pages but the
 * last entry and the first problems found: a first version kept every
 * memory's recorded hash in one map, 905 MB at a million memories. Each page
 * of memories looks up its own audit entries by memory id (an index on both
 * backends); the chain pass has already vouched for those entries.
 */
export async function verifyAudit(ctx: ServiceContext, p: Principal, opts: { onProgress?: (x: AuditProgress) => void } = {}): Promise<AuditReport> {
  const chainProblems: ChainProblem[] = [];
  const head = await ctx.store.audit.head();
  let chainFound = 0;
  let prev: { seq: number; hash: string } | null = null;
  let entries = 0;
  for (;;) {
    const page = await ctx.store.audit.range(p, prev?.seq ?? 0, PAGE);
    if (page.length === 0) break;
    for (const problem of verifyChainSegment(prev, page)) if (chainFound++ < MAX_REPORTED) chainProblems.push(problem);
    entries += page.length;
    const last = page[page.length - 1]!;
    prev = { seq: last.seq, hash: last.hash };
    opts.onProgress?.({ phase: 'chain', done: entries, total: Math.max(head?.seq ?? 0, entries) });
  }
  const memoryProblems: MemoryProblem[] = [];
  let memoriesChecked = 0;
  let problemsFound = 0;
  let after: string | null = null;
  for (;;) {
    const page = await ctx.store.scanContent(p, after, PAGE);
    if (page.length === 0) break;
    const recorded = await ctx.store.audit.recordedHashes(p, page.map((m) => m.id));
    for (const m of page) {
      memoriesChecked++;
      const problem = checkMemory(m, recorded);
      if (problem && problemsFound++ < MAX_REPORTED) memoryProblems.push(problem);
    }
    after = page[page.length - 1]!.id;
    opts.onProgress?.({ phase: 'memories', done: memoriesChecked, total: 0 });
  }
  opts.onProgress?.({ phase: 'done', done: memoriesChecked, total: memoriesChecked });
  return {
    ok: chainProblems.length === 0 && memoryProblems.length === 0,
    entries,
    head: await ctx.store.audit.head(),
    memoriesChecked,
    chainProblems,
    memoryProblems,
    problemsFound: { chain: chainFound, memories: problemsFound },
  };
}

function checkMemory(m: MemoryContent, recorded: Map<string, string | null>): MemoryProblem | null {
  if (sha256Hex(m.text) !== m.contentHash) return { memoryId: m.id, problem: 'text_changed', message: `memory ${m.id}: stored text no longer matches its content hash` };
  if (!recorded.has(m.id)) return { memoryId: m.id, problem: 'not_in_audit_log', message: `memory ${m.id} has no creating entry in the audit log` };
  if (recorded.get(m.id) !== m.contentHash) return { memoryId: m.id, problem: 'hash_differs_from_audit', message: `memory ${m.id}: content differs from what the audit log recorded` };
  return null;
}
