import { MnemosError } from '../domain/errors.ts';
import { assertStorableText, exceedsChars, isBlankText } from '../domain/unicode.ts';

/**
 * The canonical ledger's rules (formulas.md): settled facts as key, value and
 * statement, with confidence, mentions and validity. Pure: the service reads
 * and writes through the LedgerStore port.
 */
export const LEDGER_KEY_RE = /^[a-z0-9][a-z0-9._-]{1,63}$/;
export const MAX_VALUE = 500;
export const MAX_STATEMENT = 300;
export const PIN_CONFIDENCE = 0.95;
export const MAX_PROMPT_FACTS = 48;
export const DEFAULT_PROMPT_TOKENS = 1500;
export const LEDGER_CATEGORIES = ['identity', 'project', 'infra', 'preference', 'relationship', 'general'] as const;
export type LedgerCategory = (typeof LEDGER_CATEGORIES)[number];
export type LedgerStatus = 'active' | 'retired' | 'superseded';
/** Who settled it: a deliberate pin by the owner or an agent, or background learning. */
export type LedgerSource = 'owner pin' | 'agent pin' | 'learned';

export interface LedgerFact {
  id: string;
  key: string;
  value: string;
  statement: string;
  category: LedgerCategory;
  confidence: number;
  mentions: number;
  source: LedgerSource;
  status: LedgerStatus;
  validFrom: string;
  validUntil: string | null;
  supersededBy: string | null;
  updatedAt: string;
  namespace: string;
  ownerId: string;
  agentId: string | null;
  visibility: 'owner' | 'shared' | 'public';
}

export function validateFactInput(f: { key: string; value: string; statement?: string | undefined; category?: string | undefined; confidence?: number | undefined }): void {
  // A library caller is not typed at run time: a number value (42) failed inside the matcher as a TypeError, and a NaN confidence at the database.
  if (f === null || typeof f !== 'object') throw new MnemosError('validation_failed', 'give a fact as {key, value, statement?, category?}', { field: '(input)' });
  for (const field of ['key', 'value'] as const) if (typeof f[field] !== 'string') throw new MnemosError('validation_failed', `ledger ${field} must be text`, { field });
  for (const field of ['statement', 'category'] as const) {
    if (f[field] !== undefined && typeof f[field] !== 'string') throw new MnemosError('validation_failed', `ledger ${field} must be text`, { field });
  }
  if (f.confidence !== undefined && (typeof f.confidence !== 'number' || !(f.confidence >= 0 && f.confidence <= 1))) {
    throw new MnemosError('validation_failed', 'ledger confidence must be a number from 0 to 1', { field: 'confidence' });
  }
  for (const field of ['value', 'statement', 'category'] as const) if (f[field] !== undefined) assertStorableText(f[field], field);
  if (!LEDGER_KEY_RE.test(f.key)) throw new MnemosError('validation_failed', `ledger key "${f.key}" must match ${LEDGER_KEY_RE.source} (lower-case, 2-64 chars)`, { field: 'key' });
  // Characters as memory text counts them (code points), not UTF-16 units: 300 emoji are 300 characters.
  if (f.value.length === 0 || exceedsChars(f.value, MAX_VALUE)) throw new MnemosError('validation_failed', `ledger value must be 1-${MAX_VALUE} characters`, { field: 'value' });
  // A value of only spaces (or invisible characters) settles nothing: it was stored as the fact and led the prompt block as `- key:    `.
  if (isBlankText(f.value)) throw new MnemosError('validation_failed', 'ledger value must not be blank (only spaces, line breaks or invisible characters such as U+200B)', { field: 'value' });
  if (f.statement !== undefined && exceedsChars(f.statement, MAX_STATEMENT))
    throw new MnemosError('validation_failed', `ledger statement must be at most ${MAX_STATEMENT} characters`, { field: 'statement' });
}

/** strengthen: mentions + 1, confidence = min(1, max(old, new) + 0.05). */
export function strengthen(f: { confidence: number; mentions: number }, newConfidence: number): { confidence: number; mentions: number } {
  return { confidence: Math.min(1, Math.round((Math.max(f.confidence, newConfidence) + 0.05) * 1e6) / 1e6), mentions: f.mentions + 1 };
}

/** `confidence · e^(-days/180) · (1 + ln(1 + min(mentions, 1000)) / 4)`. */
export function ledgerScore(f: { confidence: number; mentions: number; updatedAt: string }, now: number): number {
  const days = Math.max(0, (now - Date.parse(f.updatedAt)) / 86_400_000);
  return f.confidence * Math.exp(-days / 180) * (1 + Math.log(1 + Math.min(f.mentions, 1000)) / 4);
}

export function isPinned(f: Pick<LedgerFact, 'source'>): boolean {
  return f.source === 'owner pin' || f.source === 'agent pin';
}

/** A deliberate pin outranks anything learned in the background; the score orders within each tier. */
export function rankFacts<T extends LedgerFact>(facts: readonly T[], now: number): (T & { score: number })[] {
  return facts
    .map((f) => ({ ...f, score: Math.round(ledgerScore(f, now) * 1e6) / 1e6 }))
    .sort((a, b) => Number(isPinned(b)) - Number(isPinned(a)) || b.score - a.score || (a.key < b.key ? -1 : 1));
}

/** A rough token estimate (4 characters a token) good enough for a budget. */
export function estimateTokens(s: string): number {
  return Math.ceil(s.length / 4);
}

export function factLine(f: Pick<LedgerFact, 'key' | 'value' | 'statement'>): string {
  return f.statement ? `- ${f.key}: ${f.value} (${f.statement})` : `- ${f.key}: ${f.value}`;
}

/** At most 48 facts, best first, while the block stays within the token budget. */
export function promptBlock(ranked: readonly LedgerFact[], maxTokens = DEFAULT_PROMPT_TOKENS): { text: string; facts: number; tokens: number } {
  const header = '## Settled facts';
  let tokens = estimateTokens(header);
  const lines: string[] = [];
  for (const f of ranked) {
    if (lines.length >= MAX_PROMPT_FACTS) break;
    const line = factLine(f);
    const t = estimateTokens(line) + 1;
    if (tokens + t > maxTokens) continue;
    lines.push(line);
    tokens += t;
  }
  return { text: lines.length ? [header, ...lines].join('\n') : '', facts: lines.length, tokens: lines.length ? tokens : 0 };
}

/**
 * Whether a new value is the stored one, for strengthen vs supersede: only
 * letter case and surrounding whitespace are ignored. Not normalizeForMatch,
 * which is for finding facts in a query and drops punctuation, signs and
 * symbols ("-5" would equal "5").
 */
export function sameValue(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** Normalises text for exact matching: lower-case, separators as spaces. */
export function normalizeForMatch(s: string): string {
  return s.toLowerCase().replace(/[._\-\s]+/g, ' ').replace(/[^\p{L}\p{N} ]/gu, '').trim();
}

/**
 * An exact hit: the query names the fact's key (in any separator style) or
 * is/contains its full value. Substring matches need a value of 3+ chars so
 * "a" or "no" never hit everything.
 */
export function isExactHit(f: Pick<LedgerFact, 'key' | 'value'>, query: string): boolean {
  const q = ` ${normalizeForMatch(query)} `;
  const key = normalizeForMatch(f.key);
  const value = normalizeForMatch(f.value);
  if (q.trim() === key || q.trim() === value) return true;
  if (key.length > 0 && q.includes(` ${key} `)) return true;
  return value.length >= 3 && q.includes(` ${value} `);
}
