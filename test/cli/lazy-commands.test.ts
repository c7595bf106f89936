import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMMANDS, loadCommand } from '../../src/surfaces/cli/commands/index.ts';
import { runCli } from '../../src/surfaces/cli/main.ts';

// The CLI imports the modules of some commands (bench, journal, cycle, episodes) only when one of them runs.

test('a lazily loaded command is the command its head in the help names', async () => {
  const lazy = COMMANDS.filter((c) => 'load' in c);
  assert.deepEqual(lazy.map((c) => c.name).sort(), ['bench', 'cycle', 'episodes', 'journal']);
  for (const head of lazy) {
    const cmd = await loadCommand(head);
    assert.deepEqual({ name: cmd.name, usage: cmd.usage, summary: cmd.summary }, { name: head.name, usage: head.usage, summary: head.summary });
    assert.equal(typeof cmd.run, 'function', head.name);
  }
});

test('a lazily loaded command still parses its sub-commands, options and help', async () => {
  const out: string[] = [];
  const io = { stdout: (s: string) => out.push(s) > 0, stderr: (s: string) => out.push(s) > 0, env: {}, isTTY: false };
  assert.equal(await runCli(['journal', '--help'], io), 0);
  assert.match(out.join(''), /journal validate/);
  out.length = 0;
  assert.equal(await runCli(['bench', 'nope'], io), 2);
  assert.match(out.join(''), /mnemos bench has no sub-command "nope"; it takes: ingest, import/);
  out.length = 0;
  assert.equal(await runCli(['--help'], io), 0);
  assert.match(out.join(''), /journal <validate\|append\|query\|view\|derive\|export>\s+the MeTTa memory journal/);
});
