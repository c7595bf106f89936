/**
 * The MeTTa memory journal (petta-memory's medium-term store): MeTTa text,
 * MemoryCluster records and their rules, the append-only journal file,
 * queries, bounded views, the bounded subprocess runner and its parse-check
 * hook, the agent bridge, and the mapping to and from engine memories.
 */
export * from './metta/index.ts';
export {
  argCount,
  argOf,
  beginLine,
  canonicalAtomLines,
  clusterText,
  declaredIds,
  endLine,
  makeCluster,
  predicateOf,
  recordText,
  symbolArg,
  textArg,
  type MemoryCluster,
} from './cluster.ts';
export * from './schema.ts';
export { parseCluster, parseClusters } from './parse-clusters.ts';
export { clusterProblems, validateCluster, validatedText, type ValidateOptions, type ValidationProblem } from './validate.ts';
export { Journal, type AppendResult, type JournalOptions, type ParseCheckHook } from './journal.ts';
export { scanJournalBytes, type ScanResult } from './journal-scan.ts';
export { acquireLock, releaseLock, withLock, type HeldLock, type LockOptions } from './file-lock.ts';
export { JournalSnapshot, type StatusMention } from './snapshot.ts';
export { matchingOrdinals, QUERY_KINDS, queryClusters, type JournalQuery, type JournalQueryKind, type QueryOptions } from './query.ts';
export { collectBeliefs, readStv, type BeliefRecord } from './promotion.ts';
export { joinBounded, type BoundedText } from './views/bounded.ts';
export { auditView, auditViewBounded } from './views/audit-view.ts';
export { indexAtoms, indexView, indexViewBounded } from './views/index-view.ts';
export { compareScored, promptView, promptViewBounded, rankClusters, saliencePoints, scoreCluster, type PromptViewOptions, type ScoredCluster } from './views/prompt-view.ts';
export { plnSafeAtomLines, plnSafeView, plnSafeViewBounded } from './views/pln-view.ts';
export { boundedRun, type BoundedRunError, type BoundedRunFailure, type BoundedRunResult, type BoundedRunSpec, type BoundedRunSuccess, type StreamRecord } from './bounded-run.ts';
export { resolveExecutable } from './resolve-executable.ts';
export { sha256File } from '../runtime/file-sha256.ts';
export { makeRuntimeParseCheck, type RuntimeCheckConfig } from './parse-check.ts';
export { AgentMemoryBridge, AUTONOMOUS_WRITES_DISABLED, type BridgeFlags, type BridgeOptions } from './bridge.ts';
export { clusterIdFor, memoriesToClusters, memoryToCluster, MNEMOS_CLUSTER_SOURCE, MNEMOS_CLUSTER_TYPE, subjectIdFor } from './memory-export.ts';
export { clustersToMemoryInputs, type JournalMemoryInput } from './memory-import.ts';
export { benchJournal, type JournalBenchResult } from './bench.ts';
