import { MnemosError } from '../domain/errors.ts';
import type { Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import { clusterText, declaredIds, type MemoryCluster } from '../journal/cluster.ts';
import { memoryToCluster, subjectIdFor } from '../journal/memory-export.ts';
import { num, str, sym, type MettaAtom } from '../journal/metta/ast.ts';
import { UNARY_PREDICATES } from '../journal/schema.ts';
import { clusterProblems } from '../journal/validate.ts';
import type { ServiceContext } from './context.ts';
import type { ScanPage } from '../ports/store.ts';

/**
 * `mnemos export --format metta`: every stored version (superseded and
 * archived ones too, like the JSONL export) as one MemoryCluster record, in
 * id order. The output is a valid journal: it can be appended, queried and
 * read by petta-memory.
 *
 * Lossless or nothing: `memoryToCluster` carries the content and the
 * petta-memory-readable atoms; the fields it leaves out (owner, agent,
 * session, read-only, expiry, supersession, access statistics) are added
 * here as Mnemos atoms, so `import --format metta` restores the exact record
 * and a second export gives the same text. A memory that cannot be a valid
 * record (its text or metadata over the 4,096-character atom limit, or the
 * record over 65,536) is never shortened or skipped: the export fails before
 * writing anything, naming the memory, and the JSONL export remains the way
 * to move it. Splitting text over several atoms would keep it but make
 * petta-memory readers see a partial MemoryText, which is worse.
 */

const PAGE = 1000;

/** Mnemos atoms for the Memory fields the petta-memory-readable mapping leaves out. */
export const EXTRA_PREDICATES = {
  owner: 'MemoryOwner',
  agent: 'MemoryAgent',
  session: 'MemorySession',
  readOnly: 'MemoryReadOnly',
  expiresAt: 'MemoryExpiresAt',
  supersededAt: 'MemorySupersededAt',
  supersededBy: 'MemorySupersededBy',
  accessCount: 'MemoryAccessCount',
  lastAccessedAt: 'MemoryLastAccessedAt',
} as const;

export function memoryToFullCluster(m: Memory): MemoryCluster {
  const base = memoryToCluster(m);
  const s = sym(subjectIdFor(m));
  const atoms: MettaAtom[] = [...base.atoms, a(EXTRA_PREDICATES.owner, s, str(m.ownerId))];
  if (m.agentId !== null) atoms.push(a(EXTRA_PREDICATES.agent, s, str(m.agentId)));
  if (m.sessionId !== null) atoms.push(a(EXTRA_PREDICATES.session, s, str(m.sessionId)));
  if (m.readOnly) atoms.push(a(EXTRA_PREDICATES.readOnly, s, sym('true')));
  if (m.expiresAt !== null) atoms.push(a(EXTRA_PREDICATES.expiresAt, s, str(m.expiresAt)));
  if (m.supersededAt !== null) atoms.push(a(EXTRA_PREDICATES.supersededAt, s, str(m.supersededAt)));
  if (m.supersededBy !== null) atoms.push(a(EXTRA_PREDICATES.supersededBy, s, str(m.supersededBy)));
  atoms.push(a(EXTRA_PREDICATES.accessCount, s, num(m.accessCount)));
  if (m.lastAccessedAt !== null) atoms.push(a(EXTRA_PREDICATES.lastAccessedAt, s, str(m.lastAccessedAt)));
  return { id: base.id, atoms };
}

/** Canonical record text of one memory, or a `limit_exceeded`/`validation_failed` error naming it. */
export function memoryRecordText(m: Memory, isKnownId?: (id: string) => boolean): string {
  const cluster = memoryToFullCluster(m);
  const problems = clusterProblems(cluster, isKnownId ? { isKnownId } : {});
  if (problems.length > 0) {
    const tooBig = problems.some((p) => p.rule === 'atom-size' || p.rule === 'cluster-size');
    throw new MnemosError(
      tooBig ? 'limit_exceeded' : 'validation_failed',
      `memory ${m.id} cannot be exported as a MemoryCluster without losing data: ${problems[0]!.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}; nothing was written. Export it with --format jsonl, or shorten it first (mnemos update ${m.id} --text ...)`,
      { id: m.id, problems },
    );
  }
  return clusterText(cluster);
}

/**
 * Checks every memory first and writes only when all of them fit, so a
 * failed export never leaves a partial file behind a success-looking exit.
 * Returns the number of records written.
 */
export async function exportMetta(ctx: ServiceContext, p: Principal, write: (text: string) => void | Promise<void>): Promise<number> {
  // Both passes read one snapshot: what was checked is what is written.
  return ctx.store.snapshot(async (scan) => {
    const declared = new Set<string>();
    const isKnownId = (id: string) => declared.has(id);
    // Pass 1: validate everything (the whole export is refused if one memory does not fit).
    await scanAll(scan, p, (m) => {
      memoryRecordText(m, isKnownId);
      for (const id of declaredIds(memoryToFullCluster(m), UNARY_PREDICATES)) declared.add(id);
    });
    // Pass 2: write. Ids were checked once; the texts are recomputed rather than held, so memory stays flat.
    let n = 0;
    await scanAll(scan, p, async (m) => {
      await write(memoryRecordText(m));
      n++;
    });
    return n;
  });
}

async function scanAll(scan: ScanPage, p: Principal, visit: (m: Memory) => void | Promise<void>): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const page = await scan(p, after, PAGE);
    if (page.length === 0) return;
    for (const m of page) await visit(m);
    after = page[page.length - 1]!.id;
  }
}

function a(head: string, ...args: MettaAtom[]): MettaAtom {
  return { kind: 'expr', items: [sym(head), ...args] };
}
