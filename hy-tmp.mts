import { openMemory } from '/work/main/src/index.ts';
import { SyntheticText, latencySummary } from '/work/main/src/bench/synthetic.ts';
const mem: any = await openMemory({ db: process.env.DB ?? "/tmp/s8.db" });
const gen = new SyntheticText(11);
for (let i = 0; i < 100000; i++) gen.sentence();
const mode = process.env.MODE ?? 'hybrid';
await mem.prepareKeywordSearch?.();
await mem.prepareVectorIndex?.();
for (let i = 0; i < 200; i++) await mem.search({ query: gen.query(), limit: 10, mode });
const samples: number[] = [];
const c0 = process.cpuUsage();
const { Session } = await import('node:inspector/promises');
let sess: any;
if (process.env.PROF) { sess = new Session(); sess.connect(); await sess.post('Profiler.enable'); await sess.post('Profiler.setSamplingInterval', { interval: 100 }); await sess.post('Profiler.start'); }
for (let i = 0; i < +(process.env.Q ?? 2000); i++) {
  const q = gen.query(2 + Math.floor(Math.random() * 3));
  const s = performance.now();
  await mem.search({ query: q, limit: 10, ...(mode === 'default' ? {} : { mode }) });
  samples.push(performance.now() - s);
}
const c = process.cpuUsage(c0);
if (sess) { const { profile } = await sess.post('Profiler.stop'); (await import('node:fs')).writeFileSync('/tmp/hy.cpuprofile', JSON.stringify(profile)); }
console.log(mode, JSON.stringify(latencySummary(samples)), 'cpu/search', ((c.user + c.system) / 1000 / samples.length).toFixed(3));
await mem.close();
