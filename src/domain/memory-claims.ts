import { canonicalJson, sha256Hex } from './hash.ts';
import type { Memory } from './memory.ts';
import { toIso, toMs } from './time.ts';

/**
 * A hash over what a stored version claims besides its text: its labels and
 * read-only flag, metadata, scope, provenance and times. The audit entry that
 * writes a version records it, so `audit verify` finds a row edited behind
 * the engine's back: a safety episode relabelled as an ordinary one, its
 * read-only flag cleared, its payload rewritten. The content hash covered
 * only the text.
 *
 * Left out is what changes in place through audited or counted operations:
 * lifecycle and importance (lifecycle entries), access counts, and the
 * closing of a version (supersededAt/By).
 *
 * Computed on every write, so the canonical JSON (keys in order) is written
 * out by hand rather than sorted per call: a third of the cost.
 */
export function claimsHash(m: Memory): string {
  const j = JSON.stringify;
  return sha256Hex(
    `{"agentId":${j(m.agentId)},"contentHash":${j(m.contentHash)},"emotionalValence":${num(m.emotionalValence)},"expiresAt":${j(time(m.expiresAt))},` +
      `"labels":${canonicalJson(m.labels)},"lineageId":${j(m.lineageId)},"metadata":${canonicalJson(m.metadata)},"namespace":${j(m.namespace)},` +
      `"origin":${j(m.origin)},"ownerId":${j(m.ownerId)},"readOnly":${m.readOnly === true},"recordedAt":${j(time(m.recordedAt))},"salience":${num(m.salience)},` +
      `"sessionId":${j(m.sessionId)},"source":${canonicalJson(m.source)},"sourceKey":${j(m.sourceKey)},"tags":${canonicalJson(m.tags)},"type":${j(m.type)},` +
      `"validFrom":${j(time(m.validFrom))},"validTo":${j(time(m.validTo))},"version":${num(m.version)},"visibility":${j(m.visibility)}}`,
  );
}

/** As canonicalJson writes a number. */
function num(n: number): string {
  return Number.isFinite(n) ? String(n) : 'null';
}

const STORED_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A time as the stores give it back (UTC, milliseconds): most already are, and are taken as they are. */
function time(iso: string | null): string | null {
  return iso === null || STORED_FORM.test(iso) ? iso : toIso(toMs(iso));
}
