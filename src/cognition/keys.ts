/** Blackboard keys and source names with a meaning to the cognitive cycle. */

/** External sleep signal (seed 000): the value `SLEEP` puts the cycle to sleep. */
export const BIO_STATE_KEY = 'bio_inspired.cognitive_state';
/** Summary written after each sleep flush: `{consolidated, tick, buffer_size}`. */
export const CONSOLIDATION_KEY = 'memory.consolidation';
/** Events the safety gate refused during the last flush. */
export const BLOCKED_KEY = 'memory.consolidation.blocked';
/** Episodes retrieved at PERCEPTION. */
export const RETRIEVED_KEY = 'memory.retrieved_episodes';

/** `sourceModule` of the consolidator's and retrieval's own writes. */
export const CONSOLIDATOR_SOURCE = 'memory.consolidator';
export const RETRIEVAL_SOURCE = 'memory.retrieval';
/** Writes the consolidator never turns into episodes, so memory cannot feed on itself. */
export const SELF_SOURCES: ReadonlySet<string> = new Set([CONSOLIDATOR_SOURCE, RETRIEVAL_SOURCE]);
