/**
 * Prints the cycle benchmark as JSON with the in-memory test sink:
 * node --import tsx test/cognition/run-bench.ts
 */
import { benchCycle } from '../../src/cognition/bench.ts';
import { MemoryEpisodeStore } from './helpers.ts';

const report = await benchCycle({ sink: new MemoryEpisodeStore(), sinkName: 'memory (test helper)' });
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
