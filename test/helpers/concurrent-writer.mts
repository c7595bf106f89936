// Child process for the concurrency test: writes N memories, in small batches, to one store.
import { openMemory } from '../../src/index.ts';

const [db, worker, count] = process.argv.slice(2);
const m = await openMemory({ db: db! });
const n = Number(count);
for (let i = 0; i < n; i += 5) {
  const batch = Array.from({ length: Math.min(5, n - i) }, (_, j) => ({ text: `worker ${worker} note ${i + j}`, key: `w${worker}-${i + j}` }));
  await m.rememberMany(batch);
  if (i % 20 === 0) await m.search(`worker ${worker}`);
}
await m.close();
