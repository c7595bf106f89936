import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import { canonicalJson, sha256Hex } from '../domain/hash.ts';
import { parseOneAtom } from '../journal/metta/parser.ts';
import { printAtom } from '../journal/metta/printer.ts';
import type { MettaAtom } from '../journal/metta/ast.ts';
import { chain, type ChainFact, type ChainOptions, type ChainResult, type ChainRule } from './chainer.ts';
import { writeCreateOnce } from './create-once.ts';

/**
 * A derivation record: everything needed to check one in-process derivation
 * later. Inputs are stored with their own digests, the run is stored with
 * its budget and engine version, and the whole body is checksummed. Files
 * are create-once. Loading verifies the checksum and every input digest and
 * then re-runs the derivation: a record whose result cannot be reproduced
 * from its own inputs is `corrupt`.
 */

export const PLN_ENGINE_VERSION = 'mnemos-pln/1';

const stvSchema = z.object({ s: z.number().min(0).max(1), c: z.number().min(0).max(1) }).strict();
// `evidence` is written only when an input has some, so records made before it existed keep their digests.
const evidenceSchema = z.array(z.string()).optional();
const factSchema = z.object({ id: z.string(), term: z.string(), tv: stvSchema, stamp: z.array(z.number().int()), evidence: evidenceSchema, digest: z.string() }).strict();
const ruleSchema = z
  .object({ id: z.string(), premise: z.string(), conclusion: z.string(), tv: stvSchema, complement: stvSchema.optional(), stamp: z.array(z.number().int()), evidence: evidenceSchema, digest: z.string() })
  .strict();
const answerSchema = z.object({ term: z.string(), tv: stvSchema, proof: z.string(), stamp: z.array(z.number().int()) }).strict();
const recordSchema = z
  .object({
    schema: z.literal('mnemos.pln.derivation/1'),
    engineVersion: z.string(),
    createdAt: z.string(),
    query: z.string(),
    budget: z.object({ maxSteps: z.number().int().min(0), maxFacts: z.number().int().min(0), formula: z.enum(['total-mp', 'simple-mp']) }).strict(),
    facts: z.array(factSchema),
    rules: z.array(ruleSchema),
    result: z.object({ answers: z.array(answerSchema), steps: z.number().int(), budgetExhausted: z.boolean(), known: z.number().int() }).strict(),
    checksum: z.string(),
  })
  .strict();

export type DerivationRecord = z.infer<typeof recordSchema>;

export function deriveWithRecord(
  query: MettaAtom,
  facts: readonly ChainFact[],
  rules: readonly ChainRule[],
  options: ChainOptions,
  createdAt: string,
): { result: ChainResult; record: DerivationRecord } {
  const result = chain(query, facts, rules, options);
  const body: Omit<DerivationRecord, 'checksum'> = {
    schema: 'mnemos.pln.derivation/1',
    engineVersion: PLN_ENGINE_VERSION,
    createdAt,
    query: printAtom(query),
    budget: { maxSteps: options.maxSteps, maxFacts: options.maxFacts ?? 10_000, formula: options.formula ?? 'total-mp' },
    facts: facts.map((f) => withDigest({ id: f.id, term: printAtom(f.term), tv: { s: f.tv.s, c: f.tv.c }, stamp: [...f.stamp], ...evidenceOf(f) })),
    rules: rules.map((r) =>
      withDigest({
        id: r.id,
        premise: printAtom(r.premise),
        conclusion: printAtom(r.conclusion),
        tv: { s: r.tv.s, c: r.tv.c },
        ...(r.complement ? { complement: { s: r.complement.s, c: r.complement.c } } : {}),
        stamp: [...r.stamp],
        ...evidenceOf(r),
      }),
    ),
    result: resultJson(result),
  };
  return { result, record: { ...body, checksum: checksumOf(body) } };
}

export function saveDerivationRecord(path: string, record: DerivationRecord): void {
  verifyDerivationRecord(record);
  writeCreateOnce(path, JSON.stringify(record, null, 2) + '\n');
}

export function loadDerivationRecord(path: string): DerivationRecord {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not_found' : 'unavailable';
    throw new MnemosError(code, `cannot read derivation record ${path}: ${(err as Error).message}`, { path }, { cause: err });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new MnemosError('corrupt', `derivation record ${path} is not readable JSON`, { path }, { cause: err });
  }
  return verifyDerivationRecord(raw, path);
}

/** Checks shape, checksum, input digests and the result by replay; returns the typed record. */
export function verifyDerivationRecord(raw: unknown, where = 'derivation record'): DerivationRecord {
  const parsed = recordSchema.safeParse(raw);
  if (!parsed.success) throw new MnemosError('corrupt', `${where} does not have the derivation record shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const record = parsed.data;
  const { checksum, ...body } = record;
  if (checksumOf(body) !== checksum) throw new MnemosError('corrupt', `${where} checksum does not match its content; it was modified after it was written`);
  for (const input of [...record.facts, ...record.rules]) {
    const { digest, ...rest } = input;
    if (sha256Hex(canonicalJson(rest)) !== digest) throw new MnemosError('corrupt', `${where}: input ${input.id} does not match its digest`);
  }
  const facts: ChainFact[] = record.facts.map((f) => ({ id: f.id, term: parseOneAtom(f.term), tv: f.tv, stamp: f.stamp, ...(f.evidence ? { evidence: f.evidence } : {}) }));
  const rules: ChainRule[] = record.rules.map((r) => ({
    id: r.id,
    premise: parseOneAtom(r.premise),
    conclusion: parseOneAtom(r.conclusion),
    tv: r.tv,
    ...(r.complement ? { complement: r.complement } : {}),
    stamp: r.stamp,
    ...(r.evidence ? { evidence: r.evidence } : {}),
  }));
  const replay = chain(parseOneAtom(record.query), facts, rules, record.budget);
  if (canonicalJson(resultJson(replay)) !== canonicalJson(record.result)) {
    throw new MnemosError('corrupt', `${where}: re-running the derivation from its inputs gives a different result than recorded`);
  }
  return record;
}

function evidenceOf(input: { evidence?: readonly string[] }): { evidence?: string[] } {
  return input.evidence && input.evidence.length > 0 ? { evidence: [...input.evidence] } : {};
}

function withDigest<T extends object>(input: T): T & { digest: string } {
  return { ...input, digest: sha256Hex(canonicalJson(input)) };
}

function checksumOf(body: object): string {
  return sha256Hex(canonicalJson(body));
}

function resultJson(result: ChainResult): DerivationRecord['result'] {
  return {
    answers: result.answers.map((a) => ({ term: printAtom(a.term), tv: { s: a.tv.s, c: a.tv.c }, proof: printAtom(a.proof), stamp: a.stamp })),
    steps: result.steps,
    budgetExhausted: result.budgetExhausted,
    known: result.known,
  };
}
