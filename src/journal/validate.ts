import { MnemosError } from '../domain/errors.ts';
import { argCount, argOf, atomLocation, clusterText, predicateOf, symbolArg, type MemoryCluster } from './cluster.ts';
import type { MettaAtom } from './metta/ast.ts';
import { printAtom } from './metta/printer.ts';
import {
  BINARY_PREDICATES,
  COUNT_PREDICATES,
  DEFAULT_LIMITS,
  REQUIRED_CLUSTER_PREDICATES,
  SCHEMA_VERSION,
  SOURCE_PREDICATES,
  UNARY_PREDICATES,
  isIdentifier,
  type JournalLimits,
} from './schema.ts';
import { charCount } from '../domain/unicode.ts';

/**
 * Every rule of a MemoryCluster record (shared/reference/metta-journal.md).
 * Problems are collected, not thrown one at a time, so a caller fixing a
 * cluster sees all of them at once; each names its rule, line and atom.
 */

export interface ValidationProblem {
  rule: string;
  message: string;
  line?: number;
  atom?: string;
}

export interface ValidateOptions {
  limits?: Partial<JournalLimits>;
  /** True when an id is already declared elsewhere in the journal. */
  isKnownId?: (id: string) => boolean;
}

export function clusterProblems(cluster: MemoryCluster, options: ValidateOptions = {}): ValidationProblem[] {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const problems: ValidationProblem[] = [];
  const id = cluster.id;
  const add = (rule: string, index: number | null, what: string, atom?: MettaAtom): void => {
    const where = index === null ? `cluster ${id}` : atomLocation(cluster, index);
    const shown = atom ? safePrint(atom) : undefined;
    problems.push({ rule, message: `${where}: ${shown ? `${shown}: ` : ''}${what}`, line: index === null ? undefined : cluster.lines?.[index], atom: shown });
  };

  if (!isIdentifier(id)) add('id-syntax', null, `cluster id ${JSON.stringify(id)} is not a valid identifier (letters, digits, _ . : -, starting with a letter)`);

  const declared = new Map<string, number>();
  const present = new Set<string>();
  let clusterAtoms = 0;
  let schemaAboutCluster = 0;
  let firstSchema = 0;
  let totalChars = 0;
  const contains: Array<[number, MettaAtom]> = [];

  cluster.atoms.forEach((atom, i) => {
    let text: string;
    try {
      text = printAtom(atom);
    } catch (err) {
      add('atom-syntax', i, `cannot be written as MeTTa text: ${(err as Error).message}`);
      return;
    }
    const chars = charCount(text);
    totalChars += chars + 1;
    if (chars > limits.maxAtomChars) add('atom-size', i, `atom is ${chars} characters, over the limit of ${limits.maxAtomChars}; shorten its text`);
    if (hasLoneSurrogate(text)) add('atom-unicode', i, 'contains a lone UTF-16 surrogate that cannot be stored as UTF-8', atom);
    const pred = predicateOf(atom);
    if (atom.kind !== 'expr' || atom.items.length === 0 || pred === undefined) {
      add('atom-shape', i, 'each atom must be a non-empty list whose head is a symbol, like (About c-1 parser)', atom);
      return;
    }
    present.add(pred);
    const n = argCount(atom);

    if (UNARY_PREDICATES.has(pred)) {
      if (n !== 1) return add('arity', i, `${pred} declares one id and takes exactly 1 argument, found ${n}`, atom);
      const declaredId = symbolArg(atom, 0);
      if (declaredId === undefined || !isIdentifier(declaredId)) return add('id-syntax', i, `the declared id must be an identifier symbol matching ^[A-Za-z][A-Za-z0-9_.:-]*$`, atom);
      if (pred === 'MemoryCluster') {
        clusterAtoms++;
        if (declaredId !== id) add('envelope-id', i, `MemoryCluster names ${declaredId} but the record envelope is ${id}; they must agree`, atom);
      }
      const first = declared.get(declaredId);
      if (first !== undefined) add('duplicate-id', i, `id ${declaredId} is already declared at ${atomLocation(cluster, first)}; declare each id once`, atom);
      else declared.set(declaredId, i);
      if (options.isKnownId?.(declaredId)) add('duplicate-id-journal', i, `id ${declaredId} is already declared in the journal; choose a new id`, atom);
      return;
    }

    if (!BINARY_PREDICATES.has(pred)) return; // other vocabularies pass through unchecked
    if (n !== 2) return add('arity', i, `${pred} relates a subject to an object and takes exactly 2 arguments, found ${n}`, atom);
    const subject = symbolArg(atom, 0);
    if (subject === undefined || !isIdentifier(subject)) return add('subject-id', i, `the subject of ${pred} must be an identifier symbol`, atom);
    const object = argOf(atom, 1)!;

    if (pred === 'SchemaVersion') {
      if (object.kind !== 'symbol' || object.name !== SCHEMA_VERSION) add('schema-version', i, `schema version must be ${SCHEMA_VERSION}`, atom);
      if (subject === id) {
        // One version per record, as one MemoryCluster atom: a second (even an equal one) is refused, not read past.
        if (schemaAboutCluster++ === 0) firstSchema = i;
        else add('schema-version', i, `the cluster's SchemaVersion is already given at ${atomLocation(cluster, firstSchema)}; a record has exactly one`, atom);
      }
    } else if (COUNT_PREDICATES.has(pred)) {
      if (object.kind !== 'number' || object.value < 0) add('numeric-value', i, `${pred} must be a non-negative number`, atom);
    } else if (pred === 'PromotionTrust') {
      if (object.kind !== 'number' || object.value < 0 || object.value > 1) add('numeric-value', i, 'PromotionTrust must be a number in [0, 1]', atom);
    } else if (pred === 'Contains') {
      contains.push([i, atom]);
    }
  });

  totalChars += charCount(`;;; BEGIN MemoryCluster ${id}\n;;; END MemoryCluster ${id}\n`);
  if (totalChars > limits.maxClusterChars) add('cluster-size', null, `record is ${totalChars} characters, over the limit of ${limits.maxClusterChars}; split it into several clusters`);

  for (const [i, atom] of contains) {
    const owner = symbolArg(atom, 0);
    const target = symbolArg(atom, 1);
    if (owner !== id) add('contains-owner', i, `Contains must be owned by this cluster (${id})`, atom);
    if (target === undefined || !isIdentifier(target)) add('contains-target', i, 'the Contains target must be an identifier symbol', atom);
    else if (target === id) add('contains-self', i, 'a cluster cannot contain itself', atom);
    else if (!declared.has(target)) add('contains-target', i, `${target} is not declared in this cluster; add a declaration such as (Commitment ${target})`, atom);
  }

  if (clusterAtoms > 1) add('envelope-id', null, `found ${clusterAtoms} MemoryCluster atoms; a record has exactly one`);
  for (const pred of REQUIRED_CLUSTER_PREDICATES) {
    if (!present.has(pred)) add('required', null, `missing required atom (${pred} ${id} ...)`);
  }
  if (present.has('SchemaVersion') && schemaAboutCluster === 0) add('schema-version', null, `missing (SchemaVersion ${id} ${SCHEMA_VERSION})`);
  if (!SOURCE_PREDICATES.some((p) => present.has(p))) add('required', null, `missing a source: add (ClusterSource ${id} <source>) or (HasProvenance ${id} <source>)`);
  return problems;
}

/** Throws a `validation_failed` MnemosError listing every problem. */
export function validateCluster(cluster: MemoryCluster, options: ValidateOptions = {}): void {
  const problems = clusterProblems(cluster, options);
  if (problems.length > 0) throw invalidCluster(cluster.id, problems);
}

export function invalidCluster(id: string, problems: ValidationProblem[]): MnemosError {
  const shown = problems.slice(0, 5).map((p) => p.message);
  const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
  return new MnemosError('validation_failed', `cluster ${id} is invalid: ${shown.join('; ')}${more}`, { clusterId: id, problems });
}

/** Canonical text of a cluster that passed validation. */
export function validatedText(cluster: MemoryCluster, options: ValidateOptions = {}): string {
  validateCluster(cluster, options);
  return clusterText(cluster);
}

function safePrint(atom: MettaAtom): string {
  try {
    const text = printAtom(atom);
    return text.length > 120 ? text.slice(0, 117) + '...' : text;
  } catch {
    return '<unprintable atom>';
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}
