/**
 * Runs the LoCoMo retrieval protocol against any search function: each
 * conversation is indexed on its own, every question is the bare question
 * text, and recall@k = |evidence ∩ top k| / |evidence|, averaged over the
 * questions of each category and over all of them.
 */
import { mean, percentile } from './beir-metrics.ts';
import { LOCOMO_CATEGORIES, type LocomoCategory, type LocomoConversation, type LocomoTurn } from './locomo.ts';

export const DEFAULT_LOCOMO_KS: readonly number[] = [5, 10, 25, 50];

/** What the query function may know besides the question (e.g. to resolve "last week"). */
export interface LocomoQueryContext {
  sampleId: string;
  /** The date of the conversation's last session: "now" for relative time phrases. */
  referenceDate: string;
}

/** Builds a query function for one conversation (index once, query many times). */
export type LocomoSearch = (turns: readonly LocomoTurn[], context: LocomoQueryContext) => Promise<LocomoQueryFn> | LocomoQueryFn;
/** Ranked turn ids, best first. */
export type LocomoQueryFn = (question: string, limit: number) => Promise<readonly string[]> | readonly string[];

export type RecallByK = Record<string, number>;

export interface LocomoReport {
  questions: number;
  recall: RecallByK;
  byCategory: Record<LocomoCategory, RecallByK>;
  msPerQuery: { p50: number; p95: number };
}

export interface LocomoQuestionResult {
  sampleId: string;
  question: string;
  category: LocomoCategory;
  evidence: string[];
  ranked: string[];
  recall: RecallByK;
  ms: number;
}

export interface LocomoRun {
  report: LocomoReport;
  results: LocomoQuestionResult[];
}

export function recallAtK(ranked: readonly string[], evidence: readonly string[], k: number): number {
  if (evidence.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return evidence.filter((id) => top.has(id)).length / evidence.length;
}

function averageByK(rows: readonly LocomoQuestionResult[], ks: readonly number[]): RecallByK {
  const out: RecallByK = {};
  for (const k of ks) out[String(k)] = mean(rows.map((r) => r.recall[String(k)] ?? 0));
  return out;
}

/** Summarises per-question results into the report shape (also used on a slice of them). */
export function summariseLocomo(results: readonly LocomoQuestionResult[], ks: readonly number[] = DEFAULT_LOCOMO_KS): LocomoReport {
  const byCategory = {} as Record<LocomoCategory, RecallByK>;
  for (const c of LOCOMO_CATEGORIES) byCategory[c] = averageByK(results.filter((r) => r.category === c), ks);
  const ms = results.map((r) => r.ms);
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    questions: results.length,
    recall: averageByK(results, ks),
    byCategory,
    msPerQuery: { p50: round(percentile(ms, 50)), p95: round(percentile(ms, 95)) },
  };
}

export async function runLocomo(
  conversations: readonly LocomoConversation[],
  search: LocomoSearch,
  ks: readonly number[] = DEFAULT_LOCOMO_KS,
): Promise<LocomoRun> {
  const depth = Math.max(...ks);
  const results: LocomoQuestionResult[] = [];
  for (const conv of conversations) {
    const referenceDate = conv.turns.reduce((max, t) => (t.validFrom > max ? t.validFrom : max), '');
    const query = await search(conv.turns, { sampleId: conv.sampleId, referenceDate });
    for (const q of conv.questions) {
      const started = performance.now();
      const ranked = [...(await query(q.question, depth))];
      const ms = performance.now() - started;
      const recall: RecallByK = {};
      for (const k of ks) recall[String(k)] = recallAtK(ranked, q.evidence, k);
      results.push({ sampleId: conv.sampleId, question: q.question, category: q.category, evidence: q.evidence, ranked: ranked.slice(0, depth), recall, ms });
    }
  }
  return { report: summariseLocomo(results, ks), results };
}
