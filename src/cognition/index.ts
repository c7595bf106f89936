/**
 * The cognitive cycle (seed 000): blackboard, salience, consolidation buffer,
 * sleep-phase consolidation into episodes, and retrieval at PERCEPTION.
 * Engine-independent: persistence goes through the EpisodeSink, EpisodeSource
 * and DurableEventLog ports.
 */
export { fnmatch, compileGlob, compileMatcher, translateGlob, isGlob, type GlobMatcher } from './glob.ts';
export { freezeJson, type JsonValue } from './json.ts';
export * from './blackboard-types.ts';
export { Blackboard } from './blackboard.ts';
export * from './keys.ts';
export * from './salience.ts';
export * from './episodic-event.ts';
export { ConsolidationBuffer } from './consolidation-buffer.ts';
export { VolatileEventLog, type DurableEventLog, type SettledOutcome } from './durable-log.ts';
export { FileDurableEventLog } from './durable-log-file.ts';
export * from './safety.ts';
export { passSafetyGate, blockedRecord, type GateOutcome } from './safety-gate.ts';
export * from './episode.ts';
export * from './bio-state.ts';
export * from './cycle.ts';
export * from './consolidator.ts';
export * from './retrieval.ts';
export * from './memory-cycle.ts';
export * from './scenario.ts';
export * from './bench.ts';
export * from './ecan.ts';
