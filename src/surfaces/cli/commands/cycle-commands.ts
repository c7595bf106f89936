import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchCycle, type BenchCycleReport } from '../../../cognition/bench.ts';
import { FileDurableEventLog } from '../../../cognition/durable-log-file.ts';
import { episodeFromMemory } from '../../../cognition/episode.ts';
import { parseScenario, runScenario, type ScenarioResult } from '../../../cognition/scenario.ts';
import { MnemosError } from '../../../domain/errors.ts';
import { localOwner } from '../../../domain/principal.ts';
import { BENCH_FILE, machineNote, writeBenchSection } from '../../../bench/report.ts';
import { StoreEpisodes } from '../../../services/cycle/store-episodes.ts';
import { openSafetyLog } from '../../../services/cycle/safety-log.ts';
import type { DurableEventLog } from '../../../cognition/durable-log.ts';
import type { MemoryStore } from '../../../ports/store.ts';
import { openMemory } from '../../library/open-memory.ts';
import { stateDir } from '../../../services/state-dir.ts';
import { MAX_TEXT_CHARS } from '../../../services/inputs.ts';
import type { Command, CommandContext } from '../command.ts';
import { num, oneLine, positional, shortTime, str } from './options.ts';
import { CYCLE_HEAD, EPISODES_HEAD } from './heads.ts';

/**
 * The durable safety-event log: --log, else the store's own log beside a SQLite
 * file or under ./.mnemos for a server database, named by namespace and store
 * (services/cycle/safety-log.ts) so stores sharing a folder never share events.
 */
async function safetyLog(ctx: CommandContext, store: MemoryStore): Promise<DurableEventLog> {
  const explicit = str(ctx, 'log');
  if (explicit) return FileDurableEventLog.open(resolve(explicit));
  const { log, notice } = await openSafetyLog(store, stateDir(store.location), ctx.namespace);
  if (notice) ctx.stderr(`note: ${notice}\n`);
  return log;
}

const run: Command = {
  name: 'run',
  usage: 'run <scenario.jsonl> [--log file]',
  summary: 'replay a blackboard scenario through the cognitive cycle and persist its episodes',
  options: { log: { type: 'string' } },
  async run(ctx) {
    const file = positional(ctx, 0, 'scenario file');
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new MnemosError('not_found', `cannot read ${file}: ${(err as Error).message}`, { path: file });
    }
    // A malformed line, or a value too big for an episode, fails here with its line number, before the store is opened.
    const limits = { maxEpisodeChars: MAX_TEXT_CHARS };
    parseScenario(text, limits);
    const m = await ctx.open();
    const episodes = new StoreEpisodes(m.store);
    const log = await safetyLog(ctx, m.store);
    try {
      const r: ScenarioResult = await runScenario(text, { principal: m.principal, sink: episodes, source: episodes, log, limits });
      return { ticks: r.ticks, buffered: r.buffered, consolidated: r.consolidated, blocked: r.blocked, evicted: r.evicted, faded: r.faded, episodes: r.episodes, blockedEvents: r.blockedEvents, errors: r.errors };
    } finally {
      await log.close();
    }
  },
  human: (r) =>
    [
      `${r.ticks} ticks: ${r.buffered} buffered, ${r.consolidated} consolidated, ${r.blocked} blocked, ${r.evicted} evicted` +
        (r.faded > 0 ? `, ${r.faded} faded (salient writes that waited behind the per-tick scan limit and decayed below the threshold; see docs/COGNITION.md)` : ''),
      ...r.episodes.map((e: { tick: number; salience: number; blackboardKey: string; labels: string[] }) => `  tick ${e.tick}  ${e.salience.toFixed(2)}  ${e.blackboardKey}${e.labels.includes('SafetyAudit') ? '  [SafetyAudit]' : ''}`),
      ...r.blockedEvents.map((b: { blackboardKey: string; reason: string }) => `  blocked ${b.blackboardKey}: ${b.reason}`),
    ].join('\n'),
};

export const cycle: Command = {
  ...CYCLE_HEAD,
  subcommands: [run],
  async run() {
    return undefined;
  },
};

export const episodes: Command = {
  ...EPISODES_HEAD,
  needsExistingStore: true,
  options: { 'min-salience': { type: 'string' }, since: { type: 'string' }, label: { type: 'string' }, limit: { type: 'string' } },
  async run(ctx) {
    const m = await ctx.open();
    const filter: Record<string, unknown> = { types: ['episode'] };
    if (num(ctx, 'min-salience') !== undefined) filter.minSalience = num(ctx, 'min-salience');
    if (str(ctx, 'since')) filter.since = str(ctx, 'since');
    if (str(ctx, 'label')) filter.labels = [str(ctx, 'label')];
    const page = await m.list({ filter: filter as never, limit: num(ctx, 'limit') ?? 50, order: 'salience_desc' });
    return {
      total: page.total,
      episodes: page.items.map((mem) => ({ ...(episodeFromMemory(mem) ?? {}), memoryId: mem.id, text: mem.text, labels: mem.labels, readOnly: mem.readOnly, validFrom: mem.validFrom, recordedAt: mem.recordedAt })),
    };
  },
  human: (r) =>
    [
      ...r.episodes.map(
        (e: { salience?: number; validFrom: string; text: string; labels: string[] }) =>
          `${(e.salience ?? 0).toFixed(2)}  ${shortTime(e.validFrom)}  ${oneLine(e.text, 70)}${e.labels.includes('SafetyAudit') ? '  [SafetyAudit, read-only]' : ''}`,
      ),
      `(${r.episodes.length} of ${r.total})`,
    ].join('\n'),
};

export const benchCycleCmd: Command = {
  name: 'cycle',
  usage: 'cycle [--no-write]',
  summary: 'INTEGRATION scan of 10,000 entries and SLEEP flush of 1,000 events into SQLite',
  options: { 'no-write': { type: 'boolean' } },
  async run(ctx) {
    const dir = mkdtempSync(join(tmpdir(), 'mnemos-bench-cycle-'));
    const mem = await openMemory({ db: join(dir, 'bench.db'), principal: localOwner('bench') });
    try {
      const r: BenchCycleReport = await benchCycle({ sink: new StoreEpisodes(mem.store), sinkName: 'sqlite', principal: mem.principal });
      if (!ctx.values['no-write']) {
        writeBenchSection(
          BENCH_FILE,
          'cycle',
          'Cognitive cycle (seed 000)',
          [
            `Command: \`mnemos bench cycle\` on ${machineNote()}.`,
            '',
            '| figure | p50 | p95 | CPU p95 | target |',
            '|---|---|---|---|---|',
            `| INTEGRATION scan of ${r.integration.entries.toLocaleString('en')} blackboard entries | ${r.integration.p50Ms} ms | ${r.integration.p95Ms} ms | ${r.integration.cpuP95Ms} ms | p95 <= ${r.integration.targetMs} ms |`,
            `| SLEEP flush of ${r.flush.events.toLocaleString('en')} events into ${r.flush.sink} (one transaction) | ${r.flush.p50Ms} ms | ${r.flush.p95Ms} ms | ${r.flush.cpuP95Ms} ms | p95 <= ${r.flush.targetMs} ms |`,
          ].join('\n'),
        );
      }
      return r;
    } finally {
      await mem.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
  human: (r: BenchCycleReport) =>
    `INTEGRATION ${r.integration.entries} entries: p50 ${r.integration.p50Ms} ms, p95 ${r.integration.p95Ms} ms (CPU p95 ${r.integration.cpuP95Ms} ms)\nSLEEP flush ${r.flush.events} events: p50 ${r.flush.p50Ms} ms, p95 ${r.flush.p95Ms} ms (CPU p95 ${r.flush.cpuP95Ms} ms)`,
};
