import { test } from 'node:test';
import assert from 'node:assert/strict';
import { currentImportance, ebbinghaus, lifecycleMove, retention, boosted, TYPE_WEIGHTS } from '../../src/lifecycle/importance.ts';

const DAY = 86_400_000;
const close = (a: number, b: number, eps = 1e-9) => assert.ok(Math.abs(a - b) < eps, `${a} != ${b}`);

test('Ebbinghaus form: I = S(1-e^(-0.2(n+1)))e^(-λ_eff Δt), λ = 5e-10/ms, valence slows decay', () => {
  const rows: [number, number, number, number, number][] = [
    // S, n, Δt ms, valence, expected
    [1, 0, 0, 0, 1 - Math.exp(-0.2)],
    [1, 4, 0, 0, 1 - Math.exp(-1)],
    [0.5, 9, 0, 0, 0.5 * (1 - Math.exp(-2))],
    [1, 0, 1e9, 0, (1 - Math.exp(-0.2)) * Math.exp(-0.5)],
    [1, 0, 1e9, 1, (1 - Math.exp(-0.2)) * Math.exp(-0.25)],
    [1, 0, 1e9, -1, (1 - Math.exp(-0.2)) * Math.exp(-0.25)],
    [1, 0, 1e9, 0.5, (1 - Math.exp(-0.2)) * Math.exp(-0.375)],
    [0.8, 20, 30 * DAY, 0, 0.8 * (1 - Math.exp(-4.2)) * Math.exp(-5e-10 * 30 * DAY)],
    [1, 0, -5, 0, 1 - Math.exp(-0.2)], // clock skew never increases importance
  ];
  for (const [S, n, dt, v, want] of rows) close(ebbinghaus({ strength: S, accessCount: n, sinceAccessMs: dt, emotionalValence: v }), want);
});

test('thresholds: >= 0.7 long-term, >= 0.4 mid-term, < 0.02 forgotten', () => {
  const rows: [number, string][] = [
    [1, 'long_term'],
    [0.7, 'long_term'],
    [0.6999, 'mid_term'],
    [0.4, 'mid_term'],
    [0.3999, 'short_term'],
    [0.02, 'short_term'],
    [0.0199, 'forgotten'],
    [0, 'forgotten'],
  ];
  for (const [i, want] of rows) assert.equal(retention(i), want, `importance ${i}`);
});

test('lifecycle moves by threshold: consolidated when strong, archived when weak, expired when forgotten; skills frozen, consolidated kept', () => {
  const rows: [string, number, string | null][] = [
    ['generated', 0.75, 'consolidated'],
    ['activated', 0.7, 'consolidated'],
    ['consolidated', 0.9, null],
    ['generated', 0.5, null],
    ['activated', 0.1, null],
    ['generated', 0.049, 'archived'],
    ['consolidated', 0.03, null],
    ['consolidated', 0.001, null],
    ['archived', 0.03, null],
    ['archived', 0.019, 'expired'],
    ['generated', 0.001, 'expired'],
    ['frozen', 0, null],
    ['expired', 0, null],
  ];
  for (const [from, i, to] of rows) assert.equal(lifecycleMove(from as never, i)?.to ?? null, to, `${from} at ${i}`);
});

test('type weights and frozen skills in the current importance', () => {
  const now = Date.parse('2026-01-31T00:00:00Z');
  const base = { importance: 1, accessCount: 10, lastAccessedAt: '2026-01-01T00:00:00Z', recordedAt: '2025-01-01T00:00:00Z', emotionalValence: 0, lifecycle: 'activated' as const };
  const raw = ebbinghaus({ strength: 1, accessCount: 10, sinceAccessMs: 30 * DAY, emotionalValence: 0 });
  const weights: [string, number][] = [['preference', 1.2], ['goal', 1.2], ['task_pattern', 1.1], ['insight', 1.1], ['relationship', 1.1], ['episode', 0.8], ['general', 0.8], ['fact', 1]];
  for (const [type, w] of weights) {
    assert.equal(TYPE_WEIGHTS[type as keyof typeof TYPE_WEIGHTS], w);
    close(currentImportance({ ...base, type: type as never }, now), Math.min(1, raw * w));
  }
  // Skills never decay: a skill untouched for years keeps its strength.
  assert.equal(currentImportance({ ...base, type: 'skill', lifecycle: 'frozen', importance: 0.6, lastAccessedAt: '2000-01-01T00:00:00Z' }, now), 0.6);
  // Never accessed: decay runs from when it was recorded.
  close(currentImportance({ ...base, type: 'fact', accessCount: 0, lastAccessedAt: null }, now), ebbinghaus({ strength: 1, accessCount: 0, sinceAccessMs: now - Date.parse(base.recordedAt), emotionalValence: 0 }));
});

test('recall and confirmation boosts cap at 1', () => {
  assert.equal(boosted(0.5, 0.02), 0.52);
  assert.equal(boosted(0.5, 0.05), 0.55);
  assert.equal(boosted(0.99, 0.05), 1);
});
