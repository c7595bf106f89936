import { argOf, predicateOf, symbolArg, textArg, type MemoryCluster } from '../cluster.ts';
import type { MettaAtom } from '../metta/ast.ts';
import { printAtom } from '../metta/printer.ts';
import { PROMPT_PREDICATES, TEXT_PREDICATES } from '../schema.ts';
import { joinBounded, checkBudget, type BoundedText } from './bounded.ts';
import { SALIENCE_POINTS } from '../salience-levels.ts';

/**
 * Prompt context: the human-meaningful atoms of each cluster (texts,
 * statuses, topics, salience), clusters ranked by score and then recency.
 * Score: +100 per About matching a requested topic, +50 per status atom
 * matching a requested status, salience points, and +10 per text atom of a
 * subject that matched a topic. Preferences rank; they do not filter.
 */

export interface PromptViewOptions {
  topics?: readonly string[];
  statuses?: readonly string[];
  maxChars?: number;
  /** At most this many clusters contribute. */
  maxClusters?: number;
}


/** Salience points of a SalienceValue object: named levels, or a number x 40, clamped to 0..40. */
export function saliencePoints(value: MettaAtom): number {
  if (value.kind === 'number') return Math.min(40, Math.max(0, value.value * 40));
  const name = value.kind === 'symbol' ? value.name : value.kind === 'string' ? value.value : undefined;
  return name !== undefined ? (SALIENCE_POINTS[name.toLowerCase()] ?? 0) : 0;
}

export interface ScoredCluster {
  cluster: MemoryCluster;
  ordinal: number;
  score: number;
  /** Milliseconds of ClusterOpenedAt, or NaN when absent or unparseable. */
  openedAt: number;
}

export function scoreCluster(cluster: MemoryCluster, ordinal: number, options: Pick<PromptViewOptions, 'topics' | 'statuses'> = {}): ScoredCluster {
  const topics = new Set(options.topics ?? []);
  const statuses = new Set(options.statuses ?? []);
  let score = 0;
  let openedAt = NaN;
  const matchedSubjects = new Set<string>();
  for (const atom of cluster.atoms) {
    const pred = predicateOf(atom);
    const object = textArg(atom, 1);
    if (pred === 'About' && object !== undefined && topics.has(object)) {
      score += 100;
      const s = symbolArg(atom, 0);
      if (s !== undefined) matchedSubjects.add(s);
    } else if ((pred === 'HasStatus' || pred === 'ClusterStatus' || pred === 'StatusValue') && object !== undefined && statuses.has(object)) {
      score += 50;
    } else if (pred === 'SalienceValue' && argOf(atom, 1)) {
      score += saliencePoints(argOf(atom, 1)!);
    } else if (pred === 'ClusterOpenedAt' && object !== undefined && Number.isNaN(openedAt)) {
      openedAt = Date.parse(object);
    }
  }
  for (const atom of cluster.atoms) {
    const pred = predicateOf(atom);
    const s = symbolArg(atom, 0);
    if (pred !== undefined && TEXT_PREDICATES.has(pred) && s !== undefined && matchedSubjects.has(s)) score += 10;
  }
  return { cluster, ordinal, score, openedAt };
}

/** Higher score first; then the more recently opened; then the later appended. */
export function compareScored(a: ScoredCluster, b: ScoredCluster): number {
  if (a.score !== b.score) return b.score - a.score;
  const ta = Number.isNaN(a.openedAt) ? -Infinity : a.openedAt;
  const tb = Number.isNaN(b.openedAt) ? -Infinity : b.openedAt;
  if (ta !== tb) return tb > ta ? 1 : -1;
  return b.ordinal - a.ordinal;
}

export function rankClusters(clusters: readonly MemoryCluster[], options: PromptViewOptions = {}): ScoredCluster[] {
  return clusters.map((c, i) => scoreCluster(c, i, options)).sort(compareScored);
}

export function promptView(clusters: readonly MemoryCluster[], options: PromptViewOptions = {}): string {
  return promptViewBounded(clusters, options).text;
}

/** `promptView` with how many lines it holds and whether the budget cut it (maxClusters is a choice, not a cut). */
export function promptViewBounded(clusters: readonly MemoryCluster[], options: PromptViewOptions = {}): BoundedText {
  checkBudget(options.maxChars);
  checkBudget(options.maxClusters, 'maxClusters');
  const ranked = rankClusters(clusters, options).slice(0, options.maxClusters ?? clusters.length);
  return joinBounded(promptLines(ranked), options.maxChars);
}

function* promptLines(ranked: readonly ScoredCluster[]): Iterable<string> {
  for (const { cluster } of ranked) {
    for (const atom of cluster.atoms) {
      const pred = predicateOf(atom);
      if (pred !== undefined && PROMPT_PREDICATES.has(pred)) yield printAtom(atom);
    }
  }
}
