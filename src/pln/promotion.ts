import type { MemoryCluster } from '../journal/cluster.ts';
import type { MettaAtom } from '../journal/metta/ast.ts';
import { collectBeliefs, type BeliefRecord } from '../journal/promotion.ts';
import type { JournalSnapshot } from '../journal/snapshot.ts';
import type { Stv } from './truth.ts';

/**
 * Which promoted beliefs may serve as PLN premises. Beyond being promoted
 * (journal/promotion.ts), a premise needs an explicit PromotionRule, a
 * PromotionTrust in [0, 1] and a PromotionDomain, and a BeliefContent term.
 * Its confidence is capped by the trust: a belief cannot be surer than the
 * process that promoted it. Evidence counts are copied only when the journal
 * states them; they are never reconstructed from a truth value.
 */

export interface PlnPremise {
  beliefId: string;
  clusterId: string;
  statement: MettaAtom;
  /** Strength as recorded, confidence min(c, trust). */
  tv: Stv;
  recordedTv: Stv;
  trust: number;
  rule: string;
  domain: string;
  promotionEvent: string;
  evidence: string[];
  support?: number;
  opposition?: number;
  /** Numeric evidence stamp, 1-based in journal order; the same belief always gets the same stamp for one journal. */
  stamp: number;
}

export interface HeldBelief {
  beliefId: string;
  reasons: string[];
}

export function plnPremises(source: JournalSnapshot | readonly MemoryCluster[]): { premises: PlnPremise[]; held: HeldBelief[] } {
  const premises: PlnPremise[] = [];
  const held: HeldBelief[] = [];
  let stamp = 0;
  for (const b of collectBeliefs(source).values()) {
    stamp++;
    const reasons = premiseProblems(b);
    if (reasons.length > 0) {
      held.push({ beliefId: b.id, reasons });
      continue;
    }
    premises.push({
      beliefId: b.id,
      clusterId: b.clusterId,
      statement: b.content!,
      tv: { s: b.truth!.s, c: Math.min(b.truth!.c, b.trust!) },
      recordedTv: b.truth!,
      trust: b.trust!,
      rule: b.rule!,
      domain: b.domain!,
      promotionEvent: b.promotionEvent!,
      evidence: b.evidence,
      ...(b.support !== undefined ? { support: b.support } : {}),
      ...(b.opposition !== undefined ? { opposition: b.opposition } : {}),
      stamp,
    });
  }
  return { premises, held };
}

export function premiseProblems(b: BeliefRecord): string[] {
  const reasons = [...b.missing];
  if (b.content === undefined) reasons.push('no BeliefContent');
  if (b.rule === undefined) reasons.push('no PromotionRule');
  if (b.domain === undefined) reasons.push('no PromotionDomain');
  if (b.trust === undefined || !(b.trust >= 0 && b.trust <= 1)) reasons.push('no PromotionTrust in [0, 1]');
  return reasons;
}
