import { argOf, predicateOf, symbolArg, textArg, type MemoryCluster } from './cluster.ts';
import type { MettaAtom } from './metta/ast.ts';
import type { JournalSnapshot } from './snapshot.ts';

/**
 * What the journal says about each DerivedBelief, gathered journal-wide
 * (a PromotionEvent may sit in a later cluster than its belief). A belief is
 * promoted when a PromotionEvent PromotesTo it, it has a TruthValue (stv s c)
 * with both numbers in [0, 1], and some EvidenceFor mentions it. PLN export
 * additionally needs PromotionRule, PromotionTrust and PromotionDomain (see
 * src/pln/promotion.ts). Rule, trust, domain and evidence counts are read
 * from the promotion event first, then from the belief itself.
 */

export interface BeliefRecord {
  id: string;
  clusterId: string;
  content?: MettaAtom;
  truth?: { s: number; c: number };
  evidence: string[];
  /** Latest promotion event promoting this belief. */
  promotionEvent?: string;
  promotesFrom: string[];
  rule?: string;
  trust?: number;
  domain?: string;
  support?: number;
  opposition?: number;
  promoted: boolean;
  /** What keeps it from being promoted, in words. */
  missing: string[];
}

interface Facts {
  content?: MettaAtom;
  truth?: MettaAtom;
  rule?: string;
  trust?: MettaAtom;
  domain?: string;
  support?: MettaAtom;
  opposition?: MettaAtom;
  promotesTo: string[];
  promotesFrom: string[];
}

export function collectBeliefs(source: JournalSnapshot | readonly MemoryCluster[]): Map<string, BeliefRecord> {
  const clusters = Array.isArray(source) ? (source as readonly MemoryCluster[]) : (source as JournalSnapshot).clusters();
  const beliefs = new Map<string, string>(); // belief id -> cluster id
  const events: string[] = [];
  const facts = new Map<string, Facts>();
  const evidencePairs: Array<[string, string]> = [];
  const get = (id: string): Facts => {
    let f = facts.get(id);
    if (!f) facts.set(id, (f = { promotesTo: [], promotesFrom: [] }));
    return f;
  };
  for (const cluster of clusters) {
    for (const atom of cluster.atoms) {
      const pred = predicateOf(atom);
      const subject = symbolArg(atom, 0);
      if (pred === undefined || subject === undefined) continue;
      const object = argOf(atom, 1);
      switch (pred) {
        case 'DerivedBelief':
          if (!beliefs.has(subject)) beliefs.set(subject, cluster.id);
          break;
        case 'PromotionEvent':
          events.push(subject);
          break;
        case 'BeliefContent':
          if (object) get(subject).content = object;
          break;
        case 'TruthValue':
          if (object) get(subject).truth = object;
          break;
        case 'PromotesTo':
          if (object?.kind === 'symbol') get(subject).promotesTo.push(object.name);
          break;
        case 'PromotesFrom':
          if (object?.kind === 'symbol') get(subject).promotesFrom.push(object.name);
          break;
        case 'PromotionRule':
          get(subject).rule = textArg(atom, 1);
          break;
        case 'PromotionDomain':
          get(subject).domain = textArg(atom, 1);
          break;
        case 'PromotionTrust':
          if (object) get(subject).trust = object;
          break;
        case 'EvidenceSupportCount':
          if (object) get(subject).support = object;
          break;
        case 'EvidenceOppositionCount':
          if (object) get(subject).opposition = object;
          break;
        case 'EvidenceFor':
          if (object?.kind === 'symbol') evidencePairs.push([subject, object.name]);
          break;
      }
    }
  }

  const latestEvent = new Map<string, string>();
  for (const e of events) for (const b of facts.get(e)?.promotesTo ?? []) latestEvent.set(b, e);
  const evidence = new Map<string, string[]>();
  for (const [x, y] of evidencePairs) {
    if (beliefs.has(y)) push(evidence, y, x);
    else if (beliefs.has(x)) push(evidence, x, y);
  }

  const out = new Map<string, BeliefRecord>();
  for (const [id, clusterId] of beliefs) {
    const own = facts.get(id) ?? { promotesTo: [], promotesFrom: [] };
    const eventId = latestEvent.get(id);
    const ev = eventId !== undefined ? facts.get(eventId) : undefined;
    const truth = readStv(own.truth);
    const record: BeliefRecord = {
      id,
      clusterId,
      content: own.content,
      truth,
      evidence: evidence.get(id) ?? [],
      promotionEvent: eventId,
      promotesFrom: ev?.promotesFrom ?? [],
      rule: ev?.rule ?? own.rule,
      trust: readNumber(ev?.trust ?? own.trust),
      domain: ev?.domain ?? own.domain,
      support: readNumber(ev?.support ?? own.support),
      opposition: readNumber(ev?.opposition ?? own.opposition),
      promoted: false,
      missing: [],
    };
    if (eventId === undefined) record.missing.push('no PromotionEvent PromotesTo it');
    if (!truth) record.missing.push('no TruthValue (stv s c) with s and c in [0, 1]');
    if (record.evidence.length === 0) record.missing.push('no EvidenceFor');
    record.promoted = record.missing.length === 0;
    out.set(id, record);
  }
  return out;
}

/** `(stv s c)` (either case of the head) with both numbers in [0, 1]. */
export function readStv(atom: MettaAtom | undefined): { s: number; c: number } | undefined {
  if (atom?.kind !== 'expr' || atom.items.length !== 3) return undefined;
  const [head, s, c] = atom.items;
  if (head?.kind !== 'symbol' || head.name.toLowerCase() !== 'stv') return undefined;
  if (s?.kind !== 'number' || c?.kind !== 'number') return undefined;
  if (s.value < 0 || s.value > 1 || c.value < 0 || c.value > 1) return undefined;
  return { s: s.value, c: c.value };
}

function readNumber(atom: MettaAtom | undefined): number | undefined {
  return atom?.kind === 'number' ? atom.value : undefined;
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
