import { str, sym, type MettaAtom } from '../journal/metta/ast.ts';
import { printAtom } from '../journal/metta/printer.ts';
import { isIdentifier } from '../journal/schema.ts';
import { writeCreateOnce } from './create-once.ts';
import type { PlnPremise } from './promotion.ts';
import { stvAtom } from './truth.ts';

/**
 * Exports of promoted premises for PeTTaChainer and patham9 PLN. They are
 * inputs for a later, separately reviewed reasoning stage: exporting
 * promotes nothing and nothing here is an inferred belief.
 */

/** `(: <belief-id> <statement> (STV s min(c, trust)))`, one per premise. */
export function pettaChainerStatement(p: PlnPremise): MettaAtom {
  return expr(':', sym(p.beliefId), p.statement, stvAtom(p.tv));
}

export function pettaChainerStatements(premises: readonly PlnPremise[]): string[] {
  return premises.map((p) => printAtom(pettaChainerStatement(p)));
}

/**
 * `(EvidencePacket <statement> (EC <support> <opposition>) ((domain D) (promotion-rule R)) <promotion-event>)`,
 * only for premises whose journal states both counts.
 */
export function evidencePackets(premises: readonly PlnPremise[]): string[] {
  const out: string[] = [];
  for (const p of premises) {
    if (p.support === undefined || p.opposition === undefined) continue;
    const ec = expr('EC', num(p.support), num(p.opposition));
    const context: MettaAtom = { kind: 'expr', items: [expr('domain', name(p.domain)), expr('promotion-rule', name(p.rule))] };
    out.push(printAtom(expr('EvidencePacket', p.statement, ec, context, sym(p.promotionEvent))));
  }
  return out;
}

export const HANDOFF_LABEL = 'NOT INFERRED: promoted journal beliefs packaged as PLN-ready inputs for review; exporting promotes nothing and no reasoner has run';

export interface HandoffCache {
  schema: 'mnemos.pln-handoff/1';
  inferred: false;
  label: string;
  generatedAt: string;
  /** Live reasoning stays gated: consumers must not compile-add or query these as results. */
  gates: { compileadd: 'closed'; query: 'closed'; promotion: 'closed' };
  statements: Array<{
    beliefId: string;
    clusterId: string;
    statement: string;
    metta: string;
    strength: number;
    confidence: number;
    recordedConfidence: number;
    trust: number;
    rule: string;
    domain: string;
    promotionEvent: string;
    evidence: string[];
  }>;
  evidencePackets: string[];
}

export function handoffCache(premises: readonly PlnPremise[], generatedAt: string): HandoffCache {
  return {
    schema: 'mnemos.pln-handoff/1',
    inferred: false,
    label: HANDOFF_LABEL,
    generatedAt,
    gates: { compileadd: 'closed', query: 'closed', promotion: 'closed' },
    statements: premises.map((p) => ({
      beliefId: p.beliefId,
      clusterId: p.clusterId,
      statement: printAtom(p.statement),
      metta: printAtom(pettaChainerStatement(p)),
      strength: p.tv.s,
      confidence: p.tv.c,
      recordedConfidence: p.recordedTv.c,
      trust: p.trust,
      rule: p.rule,
      domain: p.domain,
      promotionEvent: p.promotionEvent,
      evidence: p.evidence,
    })),
    evidencePackets: evidencePackets(premises),
  };
}

/** Writes the cache as a new file; refuses to overwrite one. */
export function writeHandoffCache(path: string, cache: HandoffCache): void {
  writeCreateOnce(path, JSON.stringify(cache, null, 2) + '\n');
}

export interface Patham9Export {
  /** `(Sentence (<term> (stv S C)) (<stamp>))` with numeric stamps, as trueagi-io/PLN loads them. */
  sentences: string[];
  /** What each numeric stamp stands for, since the Sentence form has no room for provenance. */
  sidecar: Array<{
    stamp: number;
    beliefId: string;
    clusterId: string;
    promotionEvent: string;
    evidence: string[];
    rule: string;
    domain: string;
    trust: number;
    support?: number;
    opposition?: number;
  }>;
}

export function patham9Sentences(premises: readonly PlnPremise[]): Patham9Export {
  const sentences: string[] = [];
  const sidecar: Patham9Export['sidecar'] = [];
  for (const p of premises) {
    const body: MettaAtom = { kind: 'expr', items: [p.statement, stvAtom(p.tv, 'stv')] };
    const stamps: MettaAtom = { kind: 'expr', items: [num(p.stamp)] };
    sentences.push(printAtom(expr('Sentence', body, stamps)));
    sidecar.push({
      stamp: p.stamp,
      beliefId: p.beliefId,
      clusterId: p.clusterId,
      promotionEvent: p.promotionEvent,
      evidence: p.evidence,
      rule: p.rule,
      domain: p.domain,
      trust: p.trust,
      ...(p.support !== undefined ? { support: p.support } : {}),
      ...(p.opposition !== undefined ? { opposition: p.opposition } : {}),
    });
  }
  return { sentences, sidecar };
}

function expr(head: string, ...args: MettaAtom[]): MettaAtom {
  return { kind: 'expr', items: [sym(head), ...args] };
}

function num(value: number): MettaAtom {
  return { kind: 'number', value };
}

/** Identifiers stay symbols; anything else travels as a string. */
function name(value: string): MettaAtom {
  return isIdentifier(value) ? sym(value) : str(value);
}
