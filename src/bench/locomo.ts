/**
 * LoCoMo loader implementing the retrieval protocol of the LoCoMo paper as
 * ../shared/datasets/README.md states it:
 * - turn documents are `{speaker} said, "{text}"`, plus ` and shared {blip_caption}`
 *   when the turn carries an image; the session date is each turn's valid time;
 * - evidence ids are cleaned (split on ; , and whitespace; `D:11:26` -> `D11:26`,
 *   `D30:05` -> `D30:5`), ids naming no turn are dropped, and so are questions
 *   left without evidence (1,982 of 1,986 remain);
 * - categories are named by count: 4 single-hop, 1 multi-hop, 2 temporal,
 *   3 open-domain, 5 adversarial.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import { parseLocomoDate } from './locomo-dates.ts';

export const LOCOMO_CATEGORIES = ['single-hop', 'multi-hop', 'temporal', 'open-domain', 'adversarial'] as const;
export type LocomoCategory = (typeof LOCOMO_CATEGORIES)[number];

/** The dataset's numeric labels, named by their counts (the names are often swapped elsewhere). */
const CATEGORY_BY_LABEL: Record<number, LocomoCategory> = {
  4: 'single-hop',
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  5: 'adversarial',
};

export interface LocomoTurn {
  /** The dialog id, e.g. `D3:14` (session 3, turn 14). */
  id: string;
  session: number;
  speaker: string;
  text: string;
  blipCaption: string | null;
  /** The paper's turn document. */
  document: string;
  /** Valid time: the session's date, ISO UTC (the dataset gives no zone). */
  validFrom: string;
}

export interface LocomoQuestion {
  question: string;
  category: LocomoCategory;
  /** Cleaned evidence ids, each naming a turn of this conversation, without duplicates. */
  evidence: string[];
}

export interface LocomoConversation {
  sampleId: string;
  speakers: [string, string];
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
  /** Questions left out because no evidence id named a turn. */
  dropped: number;
}

const TurnSchema = z.object({
  speaker: z.string(),
  dia_id: z.string(),
  text: z.string(),
  blip_caption: z.string().optional(),
});

const QaSchema = z.object({
  question: z.string(),
  evidence: z.array(z.string()),
  category: z.number().int(),
});

const SampleSchema = z.object({
  sample_id: z.string(),
  conversation: z.record(z.string(), z.unknown()),
  qa: z.array(QaSchema),
});

export function turnDocument(speaker: string, text: string, blipCaption: string | null): string {
  const base = `${speaker} said, "${text}"`;
  return blipCaption ? `${base} and shared ${blipCaption}` : base;
}

/** Splits a raw evidence entry and repairs the known malformed forms; ids are canonical `D<s>:<t>`. */
export function cleanEvidence(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (const entry of raw) {
    for (const part of entry.split(/[;,\s]+/)) {
      const m = /^D:?(\d+):(\d+)$/.exec(part.trim());
      if (m) out.push(`D${Number(m[1])}:${Number(m[2])}`);
    }
  }
  return [...new Set(out)];
}

function parseSample(raw: unknown, index: number): LocomoConversation {
  const parsed = SampleSchema.safeParse(raw);
  if (!parsed.success) {
    throw new MnemosError('validation_failed', `LoCoMo sample ${index} is malformed: ${z.prettifyError(parsed.error)}`, { index });
  }
  const { sample_id: sampleId, conversation, qa } = parsed.data;
  const speakers: [string, string] = [String(conversation['speaker_a'] ?? ''), String(conversation['speaker_b'] ?? '')];
  const turns: LocomoTurn[] = [];
  const sessions = Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  for (const session of sessions) {
    const list = z.array(TurnSchema).safeParse(conversation[`session_${session}`]);
    if (!list.success) throw new MnemosError('validation_failed', `LoCoMo ${sampleId} session_${session} is malformed`, { sampleId, session });
    const dateText = conversation[`session_${session}_date_time`];
    if (typeof dateText !== 'string') throw new MnemosError('validation_failed', `LoCoMo ${sampleId} session_${session} has no date`, { sampleId, session });
    const validFrom = parseLocomoDate(dateText);
    for (const t of list.data) {
      const [id] = cleanEvidence([t.dia_id]);
      const blip = t.blip_caption ?? null;
      turns.push({ id: id ?? t.dia_id, session, speaker: t.speaker, text: t.text, blipCaption: blip, document: turnDocument(t.speaker, t.text, blip), validFrom });
    }
  }
  const known = new Set(turns.map((t) => t.id));
  const questions: LocomoQuestion[] = [];
  let dropped = 0;
  for (const item of qa) {
    const category = CATEGORY_BY_LABEL[item.category];
    if (!category) throw new MnemosError('validation_failed', `LoCoMo ${sampleId} has unknown category ${item.category}`, { sampleId });
    const evidence = cleanEvidence(item.evidence).filter((id) => known.has(id));
    if (evidence.length === 0) dropped++;
    else questions.push({ question: item.question, category, evidence });
  }
  return { sampleId, speakers, turns, questions, dropped };
}

export function parseLocomo(json: unknown): LocomoConversation[] {
  if (!Array.isArray(json)) throw new MnemosError('validation_failed', 'LoCoMo file must hold a JSON array of conversations');
  return json.map(parseSample);
}

export async function loadLocomo(path: string): Promise<LocomoConversation[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new MnemosError('not_found', `cannot read LoCoMo file ${path}: ${(err as Error).message}`, { path }, { cause: err });
  }
  try {
    return parseLocomo(JSON.parse(text));
  } catch (err) {
    if (MnemosError.is(err)) throw err;
    throw new MnemosError('validation_failed', `LoCoMo file ${path} is not valid JSON`, { path }, { cause: err });
  }
}
