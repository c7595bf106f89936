import { predicateOf, symbolArg, textArg, type MemoryCluster } from '../cluster.ts';
import { printAtom } from '../metta/printer.ts';
import { collectBeliefs } from '../promotion.ts';
import { PLN_UNSAFE_PREDICATES, QUOTED_UTTERANCE_ROLE } from '../schema.ts';
import { joinBounded, type BoundedText } from './bounded.ts';

/**
 * The PLN-safe view: what a reasoner may treat as premises. Raw speech and
 * quoted claims are dropped, and with them every atom mentioning their
 * subjects (whatever declared or described them: a SpeechEvent, a
 * QuotedClaim, a RawUtterance or ClaimText line) or a subject whose
 * EpistemicRole is quoted-utterance, or a DerivedBelief that is not
 * promoted. Belief content and truth values appear only for promoted
 * beliefs. Someone's words never become a belief by accident: excluding by
 * the role alone let a quoted claim without one bring its content and truth
 * value into this view.
 */
export function plnSafeAtomLines(clusters: readonly MemoryCluster[]): string[] {
  const excluded = new Set<string>();
  for (const c of clusters) {
    for (const atom of c.atoms) {
      const pred = predicateOf(atom);
      const quoted = pred !== undefined && PLN_UNSAFE_PREDICATES.has(pred);
      if (quoted || (pred === 'EpistemicRole' && textArg(atom, 1) === QUOTED_UTTERANCE_ROLE)) {
        const s = symbolArg(atom, 0);
        if (s !== undefined) excluded.add(s);
      }
    }
  }
  const promoted = new Set<string>();
  for (const b of collectBeliefs(clusters).values()) (b.promoted ? promoted : excluded).add(b.id);

  const lines: string[] = [];
  for (const c of clusters) {
    for (const atom of c.atoms) {
      const pred = predicateOf(atom);
      if (pred === undefined || PLN_UNSAFE_PREDICATES.has(pred) || atom.kind !== 'expr') continue;
      if (BELIEF_PREDICATES.has(pred) && !promoted.has(symbolArg(atom, 0) ?? '')) continue;
      if (atom.items.some((a, k) => k > 0 && a.kind === 'symbol' && excluded.has(a.name))) continue;
      lines.push(printAtom(atom));
    }
  }
  return lines;
}

/** What a belief holds: shown only for a promoted DerivedBelief. */
const BELIEF_PREDICATES = new Set(['BeliefContent', 'TruthValue']);

export function plnSafeView(clusters: readonly MemoryCluster[], options: { maxChars?: number } = {}): string {
  return plnSafeViewBounded(clusters, options).text;
}

/** `plnSafeView` with how many lines it holds and whether the budget cut it. */
export function plnSafeViewBounded(clusters: readonly MemoryCluster[], options: { maxChars?: number } = {}): BoundedText {
  return joinBounded(plnSafeAtomLines(clusters), options.maxChars);
}
