import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { runCli } from '../../src/surfaces/cli/main.ts';

export { REFERENCE_EXAMPLE, record } from '../journal/fixtures/example.ts';
export { tempDir } from '../helpers/temp.ts';

const BIN = resolve('bin/mnemos.js');

/** The real CLI in a temp cwd, with no store or namespace leaking in from the environment. */
export function cli(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, MNEMOS_DB: '', MNEMOS_NAMESPACE: '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** With --json: exactly one JSON line on stdout. */
export function cliJson(cwd: string, ...args: string[]) {
  const r = cli(cwd, ...args, '--json');
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `--json must print exactly one line, got: ${r.stdout} / ${r.stderr}`);
  return { ...r, body: JSON.parse(lines[0]!) };
}

/**
 * The same CLI in-process (same parsing, commands and exit codes, no spawn),
 * for the many detailed checks: a spawn costs seconds on a loaded machine.
 * Node runs each test file in its own process and a file's tests one at a
 * time, so changing the cwd for the call is safe.
 */
export async function run(cwd: string, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  const back = process.cwd();
  process.chdir(cwd);
  try {
    const code = await runCli(args, { stdout: (s) => ((stdout += s), true), stderr: (s) => ((stderr += s), true), env: { ...process.env, MNEMOS_DB: '', MNEMOS_NAMESPACE: '' }, isTTY: false });
    return { code, stdout, stderr };
  } finally {
    process.chdir(back);
  }
}

export async function runJson(cwd: string, ...args: string[]) {
  const r = await run(cwd, ...args, '--json');
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `--json must print exactly one line, got: ${r.stdout} / ${r.stderr}`);
  return { ...r, body: JSON.parse(lines[0]!) };
}

/**
 * A promoted fact (S a) (0.8, 0.6) and rule S->T (0.9, 0.8), trust 1: the
 * issue's pinned vector, (T a) with (STV 0.7600000000000001 0.52).
 */
export const PLN_CLUSTER = `;;; BEGIN MemoryCluster mc-pln
(MemoryCluster mc-pln)
(SchemaVersion mc-pln medium-memory-v1)
(ClusterType mc-pln review)
(ClusterOpenedAt mc-pln "2026-11-29T10:00:00Z")
(ClusterSource mc-pln tests)
(Contains mc-pln f-1)
(DerivedBelief f-1)
(BeliefContent f-1 (S a))
(TruthValue f-1 (stv 0.8 0.6))
(EvidenceFor o-1 f-1)
(ObservedEvent o-1)
(Contains mc-pln o-1)
(EvidenceSupportCount f-1 8)
(EvidenceOppositionCount f-1 2)
(DerivedBelief rule-1)
(BeliefContent rule-1 (Implication (S $x) (T $x)))
(TruthValue rule-1 (stv 0.9 0.8))
(EvidenceFor o-1 rule-1)
(PromotionEvent pe-1)
(PromotesTo pe-1 f-1)
(PromotesTo pe-1 rule-1)
(PromotionRule pe-1 reviewed)
(PromotionTrust pe-1 1)
(PromotionDomain pe-1 demo)
;;; END MemoryCluster mc-pln
`;
