import type { Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import { toStoreFilter } from './build-memory.ts';
import type { ServiceContext } from './context.ts';
import { searchSchema, type SearchInput } from './inputs.ts';
import { parseInput } from './validate.ts';

export interface SearchHit {
  memory: Memory;
  score: number;
  /** Why it matched: the query terms it contains and its rank in each list that found it. */
  why: { matchedTerms: string[]; ranks: Record<string, number> };
}

export interface SearchResult {
  query: string;
  hits: SearchHit[];
  /** What was searched; always present, and the whole answer when nothing matched. */
  explain: SearchExplain;
}

export interface SearchExplain {
  terms: string[];
  lists: string[];
  filter: Record<string, unknown>;
  scope: { namespace: string; role: string };
  /** How many memories were searched; counted only when nothing matched. */
  visibleMemories?: number;
  message?: string;
}

/** How many keyword candidates to take per requested result. */
const CANDIDATE_FACTOR = 4;

export async function searchMemories(ctx: ServiceContext, p: Principal, input: SearchInput): Promise<SearchResult> {
  const q = parseInput(searchSchema, input, 'search request');
  const filter = toStoreFilter(q.filter);
  const terms = ctx.analyzeQuery(q.query);
  const want = q.offset + q.limit;
  const candidates = terms.length ? await ctx.store.keywordCandidates(p, { terms, filter, limit: Math.max(want * CANDIDATE_FACTOR, 50) }) : [];
  const ranked = candidates.filter((c) => q.minScore === undefined || c.score >= q.minScore).slice(q.offset, want);
  const memories = await ctx.store.getMany(p, ranked.map((c) => c.id));
  const byId = new Map(memories.map((m) => [m.id, m]));
  const termSet = new Set(terms);
  const hits: SearchHit[] = [];
  ranked.forEach((c, i) => {
    const memory = byId.get(c.id);
    if (!memory) return;
    const own = new Set(ctx.analyzeQuery(memory.text));
    hits.push({ memory, score: c.score, why: { matchedTerms: [...termSet].filter((t) => own.has(t)), ranks: { keyword: q.offset + i + 1 } } });
  });
  const explain: SearchExplain = { terms, lists: ['keyword'], filter: q.filter, scope: { namespace: p.namespace, role: p.role } };
  if (hits.length === 0) {
    // Counting what was searched costs a scan, so it is paid only when it is the answer.
    explain.visibleMemories = await ctx.store.count(p, filter);
    explain.message =
      terms.length === 0
        ? `the query "${q.query}" has no searchable words (only stop words or punctuation)`
        : `no memory among the ${explain.visibleMemories} visible to ${p.role} "${p.id}" in namespace "${p.namespace}" contains any of: ${terms.join(', ')}`;
  }
  return { query: q.query, hits, explain };
}
