/** When the background ANALYZE after bulk writes runs: each doubling of the table, one at a time, retried after a failure. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnalyzeScheduler, MIN_ROWS } from '../../src/adapters/postgres/analyze.ts';

function scheduler(basis: number, fail = () => false) {
  const runs: number[] = [];
  const errors: unknown[] = [];
  let release: () => void = () => {};
  let written = 0;
  const s = new AnalyzeScheduler(
    () => {
      runs.push(written);
      return new Promise<void>((resolve, reject) => {
        release = () => (fail() ? reject(new Error('denied')) : resolve());
      });
    },
    basis,
    (e) => errors.push(e),
  );
  const wrote = (n: number) => {
    written += n;
    s.wrote(n);
  };
  return { s, runs, errors, wrote, finish: async () => (release(), await s.settled()) };
}

test('analyze scheduler: the first after MIN_ROWS new rows, then at each doubling; never two at once', async () => {
  const x = scheduler(0);
  x.wrote(MIN_ROWS - 1);
  assert.deepEqual(x.runs, []);
  x.wrote(1);
  assert.deepEqual(x.runs, [MIN_ROWS]);
  x.wrote(5000); // while one runs, rows are counted but no second starts
  assert.deepEqual(x.runs, [MIN_ROWS]);
  await x.finish();
  // Statistics now describe 1,000 rows; 5,000 more were written since, past the doubling at the next write.
  x.wrote(1);
  assert.deepEqual(x.runs, [MIN_ROWS, MIN_ROWS + 5001]);
  await x.finish();
  x.wrote(6000);
  assert.equal(x.runs.length, 2, 'the table has not doubled since 6,001 rows');
  x.wrote(1);
  assert.equal(x.runs.length, 3);
  await x.finish();
});

test('analyze scheduler: a table already analyzed waits for its own size in new rows; a failure is reported and retried later', async () => {
  let failing = true;
  const x = scheduler(50_000, () => failing);
  x.wrote(49_999);
  assert.equal(x.runs.length, 0);
  x.wrote(1);
  assert.equal(x.runs.length, 1);
  await x.finish();
  assert.equal(x.errors.length, 1, 'the failure reached onError');
  // The basis stays at 50,000 after a failure: the next threshold is another 50,000 rows.
  failing = false;
  x.wrote(49_999);
  assert.equal(x.runs.length, 1);
  x.wrote(1);
  assert.equal(x.runs.length, 2);
  await x.finish();
  assert.equal(x.errors.length, 1);
});
