import type { Principal } from '../domain/principal.ts';
import { createBioStateSource, type BioConfig, type BioStateSource } from './bio-state.ts';
import { Blackboard } from './blackboard.ts';
import type { Clock } from './blackboard-types.ts';
import { MemoryConsolidator, type ConsolidatorConfig } from './consolidator.ts';
import { CognitiveCycle, type CycleModule } from './cycle.ts';
import type { DurableEventLog } from './durable-log.ts';
import type { EpisodeSink, EpisodeSource } from './episode.ts';
import { EpisodeRetrieval, type RetrievalConfig } from './retrieval.ts';
import type { SafetyVerifier } from './safety.ts';
import { SalienceModel, type SalienceConfig } from './salience.ts';

/** Everything about the cognitive cycle a user may configure. */
export interface CognitionConfig {
  blackboardCapacity?: number;
  salience?: SalienceConfig;
  consolidator?: ConsolidatorConfig;
  retrieval?: RetrievalConfig;
  bio?: BioConfig;
}

export interface MemoryCycleDeps {
  principal: Principal;
  sink: EpisodeSink;
  /** Without it, nothing is retrieved at PERCEPTION. */
  source?: EpisodeSource;
  log?: DurableEventLog;
  verifier?: SafetyVerifier;
  /** Overrides `config.bio`. */
  bio?: BioStateSource;
  blackboard?: Blackboard;
  clock?: Clock;
  /** Transaction time of persisted episodes when `clock` is simulated; default: `clock`. */
  recordClock?: Clock;
  rng?: () => number;
  timer?: () => number;
  /** Further modules: they run after retrieval and before the consolidator in every phase. */
  modules?: readonly CycleModule[];
  config?: CognitionConfig;
}

export interface MemoryCycle {
  blackboard: Blackboard;
  cycle: CognitiveCycle;
  consolidator: MemoryConsolidator;
  retrieval: EpisodeRetrieval | null;
  salience: SalienceModel;
}

/**
 * Wires the three-layer memory stack for one agent: blackboard, retrieval at
 * PERCEPTION, consolidator at INTEGRATION and SLEEP_PHASE, and the bio state.
 * Call `consolidator.recover()` (or just tick) to replay logged safety events.
 */
export function createMemoryCycle(deps: MemoryCycleDeps): MemoryCycle {
  const config = deps.config ?? {};
  const clock = deps.clock ?? Date.now;
  const blackboard = deps.blackboard ?? new Blackboard({ clock, ...(config.blackboardCapacity ? { capacity: config.blackboardCapacity } : {}) });
  const salience = new SalienceModel(config.salience ?? {});
  const consolidator = new MemoryConsolidator({
    blackboard,
    principal: deps.principal,
    sink: deps.sink,
    salience,
    clock,
    ...(deps.recordClock ? { recordClock: deps.recordClock } : {}),
    ...(deps.verifier ? { verifier: deps.verifier } : {}),
    ...(deps.log ? { log: deps.log } : {}),
    ...(config.consolidator ? { config: config.consolidator } : {}),
  });
  const retrieval = deps.source
    ? new EpisodeRetrieval({ blackboard, principal: deps.principal, source: deps.source, clock, ...(config.retrieval ? { config: config.retrieval } : {}) })
    : null;
  const cycle = new CognitiveCycle({
    blackboard,
    clock,
    bio: deps.bio ?? createBioStateSource(config.bio, deps.rng),
    ...(deps.timer ? { timer: deps.timer } : {}),
    // The consolidator goes last so INTEGRATION sees what the other modules wrote this tick.
    modules: [...(retrieval ? [retrieval] : []), ...(deps.modules ?? []), consolidator],
  });
  return { blackboard, cycle, consolidator, retrieval, salience };
}
