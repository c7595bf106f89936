import type { Principal } from '../domain/principal.ts';
import type { LedgerStore } from '../ports/lifecycle.ts';
import { isExactHit, normalizeForMatch, type LedgerFact } from './ledger-rules.ts';

/** How many of the most recently changed active facts a search considers (as it always has). */
const LEDGER_SEARCH_LIMIT = 5000;
/** Callers whose indexed facts are kept per store handle; past this the oldest is dropped. */
const CALLERS_KEPT = 64;

/**
 * The active facts one caller sees, filed under their whole normalized key
 * and value. An exact hit (isExactHit) names the key or the value as whole
 * words of the query: a run of the query's words, split on single spaces as
 * isExactHit's padded comparison sees them. A search looks up each run (no
 * longer than the longest key or value), not every fact: with 2,000 facts,
 * listing and checking them all had cost 19 ms a search.
 */
export class LedgerIndex {
  private readonly byText = new Map<string, LedgerFact[]>();
  /** Words in the longest normalized key or value: no longer run of the query can name one. */
  private readonly longest: number = 0;

  constructor(readonly facts: readonly LedgerFact[]) {
    for (const f of facts) {
      for (const text of new Set([normalizeForMatch(f.key), normalizeForMatch(f.value)])) {
        const filed = this.byText.get(text);
        if (filed) filed.push(f);
        else this.byText.set(text, [f]);
        this.longest = Math.max(this.longest, text.split(' ').length);
      }
    }
  }

  /** The facts isExactHit accepts for this query, as a check of every fact would find them. */
  exactHits(query: string): LedgerFact[] {
    const words = normalizeForMatch(query).split(' ');
    const candidates = new Set<LedgerFact>();
    for (let i = 0; i < words.length; i++) {
      let run = words[i]!;
      for (let j = i; j < words.length && j - i < this.longest; j++) {
        if (j > i) run += ` ${words[j]}`;
        for (const f of this.byText.get(run) ?? []) candidates.add(f);
      }
    }
    // The rule itself decides (a value must have 3+ characters unless it is the whole query).
    return [...candidates].filter((f) => isExactHit(f, query));
  }
}

/**
 * Indexed facts per caller, listed again only when the ledger's version
 * moved (any write, from any process). The version is read before the list,
 * so a write between the two makes the next search list again rather than
 * keep a list older than its version.
 */
export class LedgerIndexCache {
  private readonly byCaller = new Map<string, { version: number; index: LedgerIndex }>();

  async for(ledger: LedgerStore, p: Principal): Promise<LedgerIndex> {
    const version = await ledger.version();
    const caller = JSON.stringify([p.role, p.namespace, p.id, p.agentId ?? null]);
    const kept = this.byCaller.get(caller);
    if (kept && kept.version === version) return kept.index;
    const index = new LedgerIndex(await ledger.list(p, { limit: LEDGER_SEARCH_LIMIT }));
    this.byCaller.delete(caller);
    if (this.byCaller.size >= CALLERS_KEPT) this.byCaller.delete(this.byCaller.keys().next().value!);
    this.byCaller.set(caller, { version, index });
    return index;
  }
}
