import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { MnemosError } from '../../../domain/errors.ts';
import { declaredIds, type MemoryCluster } from '../../../journal/cluster.ts';
import { Journal, validateAppendBatch } from '../../../journal/journal.ts';
import { parseOneAtom } from '../../../journal/metta/parser.ts';
import { printAtom } from '../../../journal/metta/printer.ts';
import { parseClusters } from '../../../journal/parse-clusters.ts';
import { QUERY_KINDS, type JournalQueryKind } from '../../../journal/query.ts';
import { DEFAULT_LIMITS, UNARY_PREDICATES } from '../../../journal/schema.ts';
import { clusterProblems } from '../../../journal/validate.ts';
import { chainInputs } from '../../../pln/chain-inputs.ts';
import { deriveWithRecord, saveDerivationRecord } from '../../../pln/derivation-record.ts';
import { evidencePackets, handoffCache, patham9Sentences, pettaChainerStatements, writeHandoffCache } from '../../../pln/exports.ts';
import { plnPremises } from '../../../pln/promotion.ts';
import { openJournalForRead, queryJournalFile, VIEW_KINDS, viewJournalFile, type JournalQueryResult, type JournalViewKind, type JournalViewResult } from '../../../services/journal-reads.ts';
import { reportedFailure, type Command, type CommandContext } from '../command.ts';
import { list, num, positional, str } from './options.ts';
import { prepareFileFolder, type FileRole } from '../../../runtime/make-folders.ts';
import { JOURNAL_HEAD } from './heads.ts';

/**
 * `mnemos journal ...`: the MeTTa journal (src/journal) and PLN (src/pln)
 * from the command line. Every sub-command takes the journal path as its
 * first argument (no hidden default: several journals per machine are
 * normal) and none of them opens the memory store. Only `append` writes to
 * the journal, through Journal.append (validated, all-or-nothing, locked,
 * fsynced); the others read it without locking.
 */

function readText(path: string, what: string, field: string): string {
  let folder = false;
  try {
    folder = statSync(path).isDirectory();
    if (!folder && !statSync(path).isFile()) throw new Error('not a regular file');
    if (!folder) return readFileSync(path, 'utf8');
  } catch (err) {
    throw new MnemosError('not_found', `cannot read ${what} ${path}: ${(err as Error).message}`, { path });
  }
  // A folder given for a file is the caller's mistake, as a journal path that is a folder is.
  throw new MnemosError('validation_failed', `${path} is a folder, not a ${what}; give the path of a .metta file`, { field, path });
}

/** A journal path's folder is made as a store's is: a folder or a path under a file is refused, an uncreatable folder is unavailable. */
const JOURNAL_FILE: FileRole = { name: 'a journal', field: 'journal', example: 'journal.metta', fix: 'nothing was written' };

/**
 * Writes an --out file. A path the system refuses (missing or uncreatable
 * folder, a file in the way, no permission) was an `internal` error (exit 1)
 * with a bare Node message; it is `unavailable` naming the file, as the
 * handoff cache and derivation records already answer.
 */
function writeOutput(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (err) {
    throw new MnemosError('unavailable', `cannot write ${path}: ${(err as Error).message}`, { path }, { cause: err });
  }
}

/** A positive integer option, or the default. */
function count(ctx: CommandContext, name: string, fallback?: number): number | undefined {
  const v = num(ctx, name);
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < 0) throw new MnemosError('validation_failed', `--${name} must be a non-negative integer, got ${v}`, { field: name });
  return v;
}

async function readJournal(path: string): Promise<Journal> {
  const journal = await openJournalForRead(path);
  if (!journal) throw new MnemosError('not_found', `no journal at ${path}; create one with mnemos journal append ${path} <cluster-file>`, { path });
  return journal;
}

interface Problem {
  cluster?: string;
  rule: string;
  line?: number;
  message: string;
}

const validate: Command = {
  name: 'validate',
  usage: 'validate <file.metta>',
  summary: 'check MemoryCluster records against every rule; lists all problems with lines (exit 2 when invalid)',
  async run(ctx) {
    const file = positional(ctx, 0, 'file');
    const text = readText(file, 'cluster file', 'file');
    const problems: Problem[] = [];
    let clusters: MemoryCluster[] = [];
    try {
      clusters = parseClusters(text);
    } catch (err) {
      // Envelope and syntax errors stop the reader; report it like any other problem.
      if (!MnemosError.is(err)) throw err;
      const line = typeof err.details?.line === 'number' ? err.details.line : undefined;
      problems.push({ rule: 'syntax', ...(line !== undefined ? { line } : {}), message: err.message });
    }
    const declared = new Set<string>();
    for (const c of clusters) {
      for (const p of clusterProblems(c, { isKnownId: (id) => declared.has(id) })) {
        problems.push({ cluster: c.id, rule: p.rule, ...(p.line !== undefined ? { line: p.line } : {}), message: p.message });
      }
      for (const id of declaredIds(c, UNARY_PREDICATES)) declared.add(id);
    }
    if (problems.length === 0 && clusters.length === 0) problems.push({ rule: 'envelope', message: 'no MemoryCluster records found' });
    const valid = problems.length === 0;
    return { file, valid, clusters: clusters.length, problems, exitCode: valid ? 0 : 2, ...(valid ? {} : { error: reportedFailure('validation_failed', `${file} is not a valid journal: ${problems.length} problem${problems.length === 1 ? '' : 's'} (listed in problems)`) }) };
  },
  human: (r) =>
    r.valid
      ? `${r.file}: valid (${r.clusters} cluster${r.clusters === 1 ? '' : 's'})`
      : [`${r.file}: invalid, ${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}`, ...r.problems.map((p: Problem) => `  [${p.rule}] ${p.message}`)].join('\n'),
};

const append: Command = {
  name: 'append',
  usage: 'append <journal> <cluster-file>',
  summary: 'validate and append clusters to a journal: all or nothing, locked, crash safe',
  async run(ctx) {
    const path = positional(ctx, 0, 'journal');
    const file = positional(ctx, 1, 'cluster-file');
    // Parsed and checked before the journal's folder is made, so a rejected
    // file leaves no empty folders behind (bad input changes nothing).
    const clusters = parseClusters(readText(file, 'cluster file', 'cluster-file'), { maxDepth: DEFAULT_LIMITS.maxDepth });
    validateAppendBatch(clusters);
    prepareFileFolder(path, JOURNAL_FILE);
    const journal = await Journal.open(path);
    const r = await journal.appendMany(clusters);
    return { journal: path, appended: r.clusterIds, bytesWritten: r.bytesWritten, warnings: [...new Set([...journal.warnings, ...r.warnings])] };
  },
  human: (r) => [`appended ${r.appended.length} cluster${r.appended.length === 1 ? '' : 's'} to ${r.journal}: ${r.appended.join(', ')}`, ...r.warnings.map((w: string) => `warning: ${w}`)].join('\n'),
};

const query: Command = {
  name: 'query',
  usage: 'query <journal> --by id|cluster|type|about|status|role --value v [--limit n]',
  summary: 'whole clusters matching one query, in journal order (default limit 20)',
  options: { by: { type: 'string' }, value: { type: 'string' }, limit: { type: 'string' } },
  async run(ctx) {
    const path = positional(ctx, 0, 'journal');
    const by = str(ctx, 'by');
    const value = str(ctx, 'value');
    if (!by || !(QUERY_KINDS as readonly string[]).includes(by)) throw new MnemosError('validation_failed', `--by must be one of ${QUERY_KINDS.join(', ')}`, { field: 'by' });
    if (!value) throw new MnemosError('validation_failed', 'give --value <v> to match', { field: 'value' });
    const limit = count(ctx, 'limit');
    const r = await queryJournalFile(path, { by: by as JournalQueryKind, value, ...(limit !== undefined ? { limit } : {}) });
    if (r.more && !ctx.json) ctx.stderr(`mnemos journal query: ${r.message}\n`);
    return r;
  },
  human: (r: JournalQueryResult) =>
    !r.exists ? (r.message ?? '') : r.count === 0 ? `no clusters match ${r.by} ${r.value}` : r.clusters.map((c) => c.text).join('\n'),
};

const view: Command = {
  name: 'view',
  usage: 'view <journal> --kind audit|index|prompt|pln-safe [--max-chars n] [--topic t] [--status s]',
  summary: 'a bounded view of whole atom lines (prompt view ranks by --topic/--status)',
  options: { kind: { type: 'string' }, 'max-chars': { type: 'string' }, topic: { type: 'string', multiple: true }, status: { type: 'string', multiple: true } },
  async run(ctx) {
    const path = positional(ctx, 0, 'journal');
    const kind = str(ctx, 'kind');
    if (!kind || !(VIEW_KINDS as readonly string[]).includes(kind)) throw new MnemosError('validation_failed', `--kind must be one of ${VIEW_KINDS.join(', ')}`, { field: 'kind' });
    const v = num(ctx, 'max-chars');
    if (v !== undefined && (!Number.isInteger(v) || v < 0)) throw new MnemosError('validation_failed', `--max-chars must be a non-negative integer, got ${v}`, { field: 'max-chars' });
    const topics = list(ctx, 'topic');
    const statuses = list(ctx, 'status');
    const r = await viewJournalFile(path, { kind: kind as JournalViewKind, ...(v !== undefined ? { maxChars: v } : {}), ...(topics ? { topics } : {}), ...(statuses ? { statuses } : {}) });
    // The text on stdout stays within the budget; what the budget left out is said on stderr (and in --json).
    if (r.truncated && !ctx.json) ctx.stderr(`mnemos journal view: ${r.message}\n`);
    return r;
  },
  human: (r: JournalViewResult) => (!r.exists ? (r.message ?? '') : r.text),
};

const derive: Command = {
  name: 'derive',
  usage: "derive <journal> --query '(T a)' [--max-steps n] [--record file]",
  summary: 'bounded PLN forward chaining over promoted beliefs; --record saves a create-once derivation record',
  options: { query: { type: 'string' }, 'max-steps': { type: 'string' }, record: { type: 'string' } },
  async run(ctx) {
    const path = positional(ctx, 0, 'journal');
    const q = str(ctx, 'query');
    if (!q) throw new MnemosError('validation_failed', "give --query '(T a)': the term to derive, $variables allowed", { field: 'query' });
    const goal = parseOneAtom(q);
    const maxSteps = count(ctx, 'max-steps', 1000)!;
    const journal = await readJournal(path);
    const { premises, held } = plnPremises(journal.view());
    const { facts, rules } = chainInputs(premises);
    const { result, record } = deriveWithRecord(goal, facts, rules, { maxSteps }, new Date().toISOString());
    const recordPath = str(ctx, 'record');
    if (recordPath) saveDerivationRecord(recordPath, record);
    return {
      journal: path,
      query: printAtom(goal),
      answers: record.result.answers,
      steps: result.steps,
      budgetExhausted: result.budgetExhausted,
      facts: facts.length,
      rules: rules.length,
      held,
      ...(recordPath ? { record: recordPath, checksum: record.checksum } : {}),
    };
  },
  human: (r) =>
    [
      r.answers.length === 0 ? `no answer for ${r.query} (${r.facts} facts, ${r.rules} rules, ${r.steps} steps${r.budgetExhausted ? ', budget exhausted' : ''})` : `${r.answers.length} answer(s) for ${r.query} in ${r.steps} steps:`,
      ...r.answers.map((a: { term: string; tv: { s: number; c: number }; proof: string }) => `  ${a.term} (STV ${a.tv.s} ${a.tv.c})  proof ${a.proof}`),
      ...(r.held.length ? [`${r.held.length} belief(s) held back from PLN: ${r.held.map((h: { beliefId: string }) => h.beliefId).join(', ')}`] : []),
      ...(r.record ? [`derivation record written to ${r.record}`] : []),
    ].join('\n'),
};

const EXPORT_FORMATS = ['pettachainer', 'packets', 'handoff', 'patham9'] as const;

const exportCmd: Command = {
  name: 'export',
  usage: 'export <journal> --format pettachainer|packets|handoff|patham9 [--out file]',
  summary: 'promoted beliefs for external reasoners (exporting promotes nothing)',
  options: { format: { type: 'string' }, out: { type: 'string' } },
  async run(ctx) {
    const path = positional(ctx, 0, 'journal');
    const format = str(ctx, 'format');
    if (!format || !(EXPORT_FORMATS as readonly string[]).includes(format)) throw new MnemosError('validation_failed', `--format must be one of ${EXPORT_FORMATS.join(', ')}`, { field: 'format' });
    const out = str(ctx, 'out');
    const journal = await readJournal(path);
    const { premises, held } = plnPremises(journal.view());
    const base = { journal: path, format, premises: premises.length, held: held.length };
    if (format === 'handoff') {
      const cache = handoffCache(premises, new Date().toISOString());
      if (out) writeHandoffCache(out, cache); // create-once, like the domain requires
      return { ...base, ...(out ? { out } : { cache }) };
    }
    if (format === 'patham9') {
      const { sentences, sidecar } = patham9Sentences(premises);
      if (out) {
        writeOutput(out, lines(sentences));
        writeOutput(`${out}.sidecar.json`, JSON.stringify(sidecar, null, 2) + '\n');
        return { ...base, out, sidecar: `${out}.sidecar.json`, count: sentences.length };
      }
      return { ...base, count: sentences.length, text: lines(sentences), sidecar };
    }
    const statements = format === 'pettachainer' ? pettaChainerStatements(premises) : evidencePackets(premises);
    if (out) {
      writeOutput(out, lines(statements));
      return { ...base, out, count: statements.length };
    }
    return { ...base, count: statements.length, text: lines(statements) };
  },
  human: (r) => {
    if (r.out) return `wrote ${r.count ?? r.premises} ${r.format} entr${(r.count ?? r.premises) === 1 ? 'y' : 'ies'} to ${r.out}${r.sidecar ? ` (provenance in ${r.sidecar})` : ''}`;
    if (r.cache) return JSON.stringify(r.cache, null, 2);
    return r.text === '' ? `no promoted beliefs to export from ${r.journal} (${r.held} held back)` : r.text;
  },
};

function lines(items: readonly string[]): string {
  return items.map((s) => s + '\n').join('');
}

export const journalCmd: Command = {
  ...JOURNAL_HEAD,
  subcommands: [validate, append, query, view, derive, exportCmd],
  async run() {
    return undefined;
  },
};
