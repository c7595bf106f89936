/**
 * The petta-memory record vocabulary (shared/reference/metta-journal.md), kept
 * in one place so the validator, queries and views agree on it.
 */

export const SCHEMA_VERSION = 'medium-memory-v1';

/** Identifier syntax for cluster ids and declared ids. */
export const IDENTIFIER_RE = /^[A-Za-z][A-Za-z0-9_.:-]*$/;

export function isIdentifier(value: string): boolean {
  return IDENTIFIER_RE.test(value);
}

/** Predicates that declare an id: exactly one argument, unique across the journal. */
export const UNARY_PREDICATES = new Set([
  'MemoryCluster',
  'ObservedEvent',
  'SpeechEvent',
  'QuotedClaim',
  'DerivedBelief',
  'Decision',
  'Hypothesis',
  'OpenQuestion',
  'Commitment',
  'Boundary',
  'Artifact',
  'StatusEvent',
  'SalienceEvent',
  'PromotionEvent',
  'TruthValueEvent',
]);

/** Metadata and retrieval relations: exactly a subject and an object. */
export const BINARY_PREDICATES = new Set([
  'SchemaVersion',
  'ClusterType',
  'ClusterOpenedAt',
  'ClusterSource',
  'HasProvenance',
  'ClusterStatus',
  'EpistemicRole',
  'About',
  'HasStatus',
  'StatusSubject',
  'StatusValue',
  'Supersedes',
  'SalienceSubject',
  'SalienceValue',
  'CommitmentText',
  'QuestionText',
  'BoundaryName',
  'ArtifactPath',
  'RawUtterance',
  'ClaimText',
  'ClaimSource',
  'ClaimStatus',
  'Said',
  'BeliefContent',
  'TruthValue',
  'EvidenceFor',
  'EvidenceSupportCount',
  'EvidenceOppositionCount',
  'PromotesFrom',
  'PromotesTo',
  'PromotionRule',
  'PromotionTrust',
  'PromotionDomain',
  'Contains',
]);

/** Atoms every cluster must carry about itself. */
export const REQUIRED_CLUSTER_PREDICATES = ['MemoryCluster', 'SchemaVersion', 'ClusterType', 'ClusterOpenedAt', 'Contains'] as const;
/** At least one of these must name where the cluster came from. */
export const SOURCE_PREDICATES = ['ClusterSource', 'HasProvenance'] as const;

/** Objects that must be non-negative numbers. */
export const COUNT_PREDICATES = new Set(['EvidenceSupportCount', 'EvidenceOppositionCount']);

/** Atoms whose object is a status, for status queries and the index. */
export const STATUS_PREDICATES = new Set(['HasStatus', 'ClusterStatus']);

/** Atoms carrying free text about a subject (prompt-view bonus when the subject matched a topic). */
export const TEXT_PREDICATES = new Set(['CommitmentText', 'QuestionText', 'BoundaryName', 'ArtifactPath']);

/** What the prompt view keeps. */
export const PROMPT_PREDICATES = new Set([
  'CommitmentText',
  'QuestionText',
  'BoundaryName',
  'ArtifactPath',
  'HasStatus',
  'ClusterStatus',
  'StatusValue',
  'About',
  'SalienceValue',
]);

/** What the PLN-safe view drops outright: raw speech and unreviewed claims. */
export const PLN_UNSAFE_PREDICATES = new Set(['RawUtterance', 'ClaimText', 'Said', 'SpeechEvent', 'QuotedClaim', 'ClaimSource', 'ClaimStatus']);

export const QUOTED_UTTERANCE_ROLE = 'quoted-utterance';

export const RECORD_KIND = 'MemoryCluster';
export const BEGIN_PREFIX = ';;; BEGIN MemoryCluster ';
export const END_PREFIX = ';;; END MemoryCluster ';

/** Every limit in characters counts Unicode code points (domain/unicode.ts charCount), as petta-memory (Python's len) does: an emoji is one. */
export interface JournalLimits {
  /** Characters of one canonical atom line (without its newline). */
  maxAtomChars: number;
  /** Characters of one canonical record, delimiters included. */
  maxClusterChars: number;
  /** Characters of one query string. */
  maxQueryChars: number;
  /** Expression nesting accepted by the reader. */
  maxDepth: number;
}

export const DEFAULT_LIMITS: JournalLimits = {
  maxAtomChars: 4096,
  maxClusterChars: 65536,
  maxQueryChars: 20000,
  maxDepth: 64,
};

export const DEFAULT_QUERY_LIMIT = 20;
