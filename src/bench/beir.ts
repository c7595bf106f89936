/**
 * BEIR benchmark: loader for the BEIR folder layout (corpus.jsonl,
 * queries.jsonl, qrels/<split>.tsv) and a harness that scores any search
 * function with nDCG@10 and recall@100, so the same code measures the
 * in-memory index today and the real store later.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MnemosError } from '../domain/errors.ts';
import { mean, ndcgAt, recallAt } from './beir-metrics.ts';

export interface BeirDocument {
  id: string;
  title: string;
  text: string;
}

export interface BeirQuery {
  id: string;
  text: string;
}

export interface BeirDataset {
  corpus: BeirDocument[];
  /** Only queries that have judgements in the split, in file order. */
  queries: BeirQuery[];
  /** query id -> document id -> relevance grade. */
  qrels: Map<string, Map<string, number>>;
}

/** Builds a query function over a corpus (index once, query many times). */
export type BeirSearch = (corpus: readonly BeirDocument[]) => Promise<BeirQueryFn> | BeirQueryFn;
/** Ranked document ids for one query, best first, at least `limit` when available. */
export type BeirQueryFn = (query: BeirQuery, limit: number) => Promise<readonly string[]> | readonly string[];

export interface BeirReport {
  'ndcg@10': number;
  'recall@100': number;
  queries: number;
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new MnemosError('not_found', `cannot read BEIR file ${path}: ${(err as Error).message}`, { path }, { cause: err });
  }
}

function parseJsonl(text: string, path: string): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      rows.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      throw new MnemosError('validation_failed', `${path}:${i + 1} is not a JSON object`, { path, line: i + 1 });
    }
  });
  return rows;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

export function parseQrels(tsv: string): Map<string, Map<string, number>> {
  const qrels = new Map<string, Map<string, number>>();
  for (const line of tsv.split('\n')) {
    const [qid, docId, grade] = line.trim().split('\t');
    if (!qid || !docId || grade === undefined || qid === 'query-id') continue;
    const g = Number(grade);
    if (!Number.isFinite(g)) continue;
    let judged = qrels.get(qid);
    if (!judged) qrels.set(qid, (judged = new Map()));
    judged.set(docId, g);
  }
  return qrels;
}

export async function loadBeir(dir: string, split = 'test'): Promise<BeirDataset> {
  const corpusPath = join(dir, 'corpus.jsonl');
  const queriesPath = join(dir, 'queries.jsonl');
  const qrelsPath = join(dir, 'qrels', `${split}.tsv`);
  const [corpusText, queriesText, qrelsText] = await Promise.all([readText(corpusPath), readText(queriesPath), readText(qrelsPath)]);
  const corpus = parseJsonl(corpusText, corpusPath).map((r) => ({ id: str(r['_id']), title: str(r['title']), text: str(r['text']) }));
  const qrels = parseQrels(qrelsText);
  const queries = parseJsonl(queriesText, queriesPath)
    .map((r) => ({ id: str(r['_id']), text: str(r['text']) }))
    .filter((q) => qrels.has(q.id));
  if (corpus.length === 0 || queries.length === 0) {
    throw new MnemosError('validation_failed', `BEIR folder ${dir} has no documents or no judged queries for split "${split}"`, { dir, split });
  }
  return { corpus, queries, qrels };
}

/** Runs every judged query through `search` and averages the metrics over them (trec_eval style). */
export async function runBeir(data: BeirDataset, search: BeirSearch, depth = 100): Promise<BeirReport> {
  const query = await search(data.corpus);
  const ndcg: number[] = [];
  const recall: number[] = [];
  for (const q of data.queries) {
    const ranked = await query(q, depth);
    const judged = data.qrels.get(q.id) ?? new Map<string, number>();
    ndcg.push(ndcgAt(ranked, judged, 10));
    recall.push(recallAt(ranked, judged, 100));
  }
  return { 'ndcg@10': mean(ndcg), 'recall@100': mean(recall), queries: data.queries.length };
}
