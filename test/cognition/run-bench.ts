/**
 * Prints the cycle benchmark as JSON: once with the in-memory test sink, and
 * once with a sink that does nothing, which isolates the consolidator's own
 * share of the flush. Usage: node --import tsx test/cognition/run-bench.ts
 */
import { benchCycle } from '../../src/cognition/bench.ts';
import type { EpisodeSink } from '../../src/cognition/episode.ts';
import { MemoryEpisodeStore } from './helpers.ts';

const noop: EpisodeSink = {
  persistEpisodes: async (_p, episodes) => episodes.map((e) => ({ eventId: e.eventId, memoryId: e.eventId, status: 'created' as const })),
};
const memory = await benchCycle({ sink: new MemoryEpisodeStore(), sinkName: 'memory (test helper)' });
const overhead = await benchCycle({ sink: noop, sinkName: 'no-op', scanRuns: 5 });
process.stdout.write(`${JSON.stringify({ memory, consolidatorOnlyFlush: overhead.flush }, null, 2)}\n`);
