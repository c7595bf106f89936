import { verifyChainSegment, type ChainProblem } from '../domain/audit.ts';
import { sha256Hex } from '../domain/hash.ts';
import type { Principal } from '../domain/principal.ts';
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
  chainProblems: ChainProblem[];
  memoryProblems: MemoryProblem[];
}

const PAGE = 2000;
const MAX_REPORTED = 100;

/**
 * Checks the hash chain end to end, then every stored memory against it: a
 * text edited in the database no longer matches its content hash, and a hash
 * edited to match no longer matches what the audit log recorded.
 */
export async function verifyAudit(ctx: ServiceContext, p: Principal): Promise<AuditReport> {
  const chainProblems: ChainProblem[] = [];
  const recorded = new Map<string, string | null>();
  let prev: { seq: number; hash: string } | null = null;
  let entries = 0;
  for (;;) {
    const page = await ctx.store.audit.range(p, prev?.seq ?? 0, PAGE);
    if (page.length === 0) break;
    chainProblems.push(...verifyChainSegment(prev, page));
    for (const e of page) {
      if (e.memoryId && (e.action === 'create' || e.action === 'update' || e.action === 'supersede' || e.action === 'merge')) recorded.set(e.memoryId, e.afterHash);
    }
    entries += page.length;
    const last = page[page.length - 1]!;
    prev = { seq: last.seq, hash: last.hash };
  }
  const memoryProblems: MemoryProblem[] = [];
  let memoriesChecked = 0;
  let after: string | null = null;
  for (;;) {
    const page = await ctx.store.scan(p, after, PAGE);
    if (page.length === 0) break;
    for (const m of page) {
      memoriesChecked++;
      if (sha256Hex(m.text) !== m.contentHash) memoryProblems.push({ memoryId: m.id, problem: 'text_changed', message: `memory ${m.id}: stored text no longer matches its content hash` });
      else if (!recorded.has(m.id)) memoryProblems.push({ memoryId: m.id, problem: 'not_in_audit_log', message: `memory ${m.id} has no creating entry in the audit log` });
      else if (recorded.get(m.id) !== m.contentHash) memoryProblems.push({ memoryId: m.id, problem: 'hash_differs_from_audit', message: `memory ${m.id}: content differs from what the audit log recorded` });
    }
    after = page[page.length - 1]!.id;
  }
  return {
    ok: chainProblems.length === 0 && memoryProblems.length === 0,
    entries,
    head: await ctx.store.audit.head(),
    memoriesChecked,
    chainProblems: chainProblems.slice(0, MAX_REPORTED),
    memoryProblems: memoryProblems.slice(0, MAX_REPORTED),
  };
}
