/**
 * A run killed with SIGKILL is dead, but until its parent reaps it the
 * process table still lists it (a zombie) and signal 0 reaches it. A shell
 * that exec'd into another program never reaps, and a container's init may
 * reap late: the killed run's lease looked alive and the next `graph
 * reindex` or consolidation was told `busy`, "try again when it is done",
 * for a run that would never be done. src/lifecycle/holder.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { named, rawSql, testStores } from '../helpers/backend.ts';
import { waitForOutput } from '../helpers/child-wait.ts';

const procState = (pid: number): string | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
};

test(named('a graph run killed but not yet reaped (a zombie) does not hold the lease: the next run goes ahead'), { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const { db, cleanup } = testStores('mnemos-zombie-');
  // The holder runs under a shell that then becomes `sleep`, which never reaps it.
  const child = join(import.meta.dirname, 'fixtures/lease-holder-child.ts');
  const parent = spawn('bash', ['-c', `"$0" --import tsx "$1" "$2" & echo "pid $!"; exec sleep 120`, process.execPath, child, db], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  parent.stdout.on('data', (d) => (out += d));
  try {
    const m = await openMemory({ db });
    try {
      await m.remember({ text: 'Alice Smith works at Acme Corp' });
      let err = '';
      parent.stderr.on('data', (d) => (err += d));
      await waitForOutput(parent, () => out.includes('holding'), 'it holds the graph lease', { what: 'the lease holder', stderr: () => err });
      const pid = Number(/pid (\d+)/.exec(out)![1]);
      await assert.rejects(m.lifecycle.indexGraph(), (err: { code?: string }) => err.code === 'busy', 'a live holder keeps the lease');
      process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 500 && procState(pid) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(procState(pid), 'Z', 'the killed holder is a zombie');
      const leases = (await rawSql(db, "SELECT holder FROM jobs WHERE name = 'graph' AND status = 'running'")) as { holder: string }[];
      assert.equal(leases.length, 1, 'the killed run left its lease, unexpired');
      assert.ok(leases[0]!.holder.includes(`:${pid}:`));

      assert.equal((await m.lifecycle.reindexGraph({ all: true })).memories, 1, 'the next run takes the dead run over');
      const report = await m.consolidate({ force: true });
      assert.equal(report.status, 'done');
      assert.equal(report.counts.graphBusy, undefined);
    } finally {
      await m.close();
    }
  } finally {
    parent.kill('SIGKILL');
    await cleanup();
  }
});
