import { canonicalJson, sha256Hex } from './hash.ts';
import type { Memory } from './memory.ts';
import { toMs, toMsOrNull } from './time.ts';

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
 * closing of a version (supersededAt/By). Times are compared as milliseconds,
 * the form both backends store.
 */
export function claimsHash(m: Memory): string {
  return sha256Hex(
    canonicalJson({
      lineageId: m.lineageId,
      version: m.version,
      contentHash: m.contentHash,
      type: m.type,
      salience: m.salience,
      emotionalValence: m.emotionalValence,
      validFrom: toMs(m.validFrom),
      validTo: toMsOrNull(m.validTo),
      recordedAt: toMs(m.recordedAt),
      expiresAt: toMsOrNull(m.expiresAt),
      origin: m.origin,
      source: m.source,
      sourceKey: m.sourceKey,
      namespace: m.namespace,
      ownerId: m.ownerId,
      agentId: m.agentId,
      sessionId: m.sessionId,
      visibility: m.visibility,
      labels: m.labels,
      readOnly: m.readOnly,
      tags: m.tags,
      metadata: m.metadata,
    }),
  );
}
