import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openMemory } from '../../src/index.ts';
import { named, rawSql, testStores } from '../helpers/backend.ts';
import { stopChild, waitForExit, waitForOutput } from '../helpers/child-wait.ts';

/**
 * Seed 000's durability promise on a real store: a process SIGKILLed in the
 * middle of a SLEEP flush loses no safety event whose write had returned, and
 * the next process's sleep writes each event's episode exactly once (the
 * durable log replays what the dead flush had not settled; the store skips
 * what it had already committed). Ordinary events are not durable and may be
 * lost, but never doubled.
 */

const fixture = fileURLToPath(new URL('./fixtures/flush-writer.ts', import.meta.url));
/** The repository root, where `--import tsx` resolves (the test itself works in its temp dir). */
const root = fileURLToPath(new URL('../../', import.meta.url));

interface Round {
  safety: string[];
  ordinary: string[];
  flushed: boolean;
}

type KillPoint = { mode: 'timed'; delayMs: number } | { mode: 'before-commit' | 'after-commit' };

/** Runs the writer until it dies at the kill point, and returns what it acknowledged. */
async function writeAndKill(dir: string, db: string, at: KillPoint): Promise<Round> {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, dir, db, '3', '200', at.mode], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  try {
    if (at.mode === 'timed') {
      await waitForOutput(child, () => out.includes('"flushing"'), 'the flush', { timeoutMs: 60_000, what: 'flush-writer', stderr: () => err });
      if (at.delayMs > 0) await new Promise((r) => setTimeout(r, at.delayMs));
      child.kill('SIGKILL');
    }
    const end = await waitForExit(child, { timeoutMs: 60_000, what: 'flush-writer', stderr: () => err });
    assert.equal(end.signal, 'SIGKILL', `the writer was to die by SIGKILL (${at.mode}); stderr: ${err}`);
  } finally {
    stopChild(child);
  }
  const round: Round = { safety: [], ordinary: [], flushed: out.includes('"flushed"') };
  for (const line of out.split('\n')) {
    if (!line.includes('"acked"')) continue;
    const { acked } = JSON.parse(line) as { acked: { safety: string[]; ordinary: string[] } };
    round.safety.push(...acked.safety);
    round.ordinary.push(...acked.ordinary);
  }
  return round;
}

test(named('SIGKILL during a SLEEP flush: every acknowledged safety event becomes one episode after restart, and nothing is doubled'), { timeout: 240_000 }, async () => {
  const { dir, db, cleanup } = testStores('mnemos-flush-kill-');
  const back = process.cwd();
  process.chdir(dir); // where a server database's safety log lives, as in the child
  try {
    const acked: string[] = [];
    // The two exact points around the episodes' transaction, then kills timed from the parent
    // (their timings are not asserted, only the outcome, wherever they land).
    const points: KillPoint[] = [{ mode: 'before-commit' }, { mode: 'after-commit' }, { mode: 'timed', delayMs: 0 }, { mode: 'timed', delayMs: 40 }];
    for (const at of points) {
      const label = at.mode === 'timed' ? `a kill ${at.delayMs} ms into the flush` : `a kill ${at.mode}`;
      const round = await writeAndKill(dir, db, at);
      assert.equal(round.safety.length, 600, 'the writer acknowledged all its safety events before sleeping');
      acked.push(...round.safety);

      // The next process: its first tick recovers the log, and its sleep flushes what is pending.
      const m = await openMemory({ db });
      try {
        const cy = m.cycle();
        await cy.write('bio_inspired.cognitive_state', 'SLEEP');
        const tick = await cy.tick();
        assert.deepEqual(tick.errors, [], JSON.stringify(tick.errors));
      } finally {
        await m.close();
      }

      const rows = await rawSql(db, "SELECT source_key, count(*) AS n FROM memories WHERE source_key LIKE 'cycle:%' GROUP BY source_key");
      const count = new Map(rows.map((r) => [String(r['source_key']), Number(r['n'])]));
      const doubled = [...count].filter(([, n]) => n > 1);
      assert.deepEqual(doubled, [], `episodes written twice after ${label}`);
      const lost = acked.filter((id) => count.get(`cycle:${id}`) !== 1);
      assert.deepEqual(lost, [], `acknowledged safety events without their episode after ${label}`);
    }
    const m = await openMemory({ db });
    try {
      const verify = await m.verifyAudit();
      assert.deepEqual([verify.chainProblems, verify.memoryProblems], [[], []]);
    } finally {
      await m.close();
    }
  } finally {
    process.chdir(back);
    await cleanup();
  }
});
