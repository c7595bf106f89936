import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MnemosError } from '../../src/domain/errors.ts';
import { AgentMemoryBridge } from '../../src/journal/bridge.ts';
import { parseMetta } from '../../src/journal/metta/parser.ts';
import { JournalSnapshot } from '../../src/journal/snapshot.ts';
import { REFERENCE_EXAMPLE } from './fixtures/example.ts';
import { sampleClusters } from './fixtures/sample-journal.ts';

const now = () => new Date('2026-06-29T18:10:00.000Z');
const source = () => JournalSnapshot.of(sampleClusters());

test('by default every read is off and returns an empty fragment', () => {
  const bridge = new AgentMemoryBridge({ source, now });
  assert.deepEqual(bridge.flags, { promptViewReads: false, indexViewReads: false, autonomousWrites: false });
  assert.equal(bridge.promptViewMetta({ topics: ['parser'] }), '');
  assert.equal(bridge.indexViewMetta(), '');
});

test('autonomous writes cannot be enabled and agent appends always fail', () => {
  assert.throws(() => new AgentMemoryBridge({ source, flags: { autonomousWrites: true } }), (e: unknown) => MnemosError.is(e, 'forbidden') && /cannot be enabled/.test(e.message));
  const bridge = new AgentMemoryBridge({ source, flags: { promptViewReads: true, indexViewReads: true, autonomousWrites: false } });
  assert.throws(() => bridge.appendFromAgent(REFERENCE_EXAMPLE), (e: unknown) => MnemosError.is(e, 'forbidden'));
  assert.throws(() => ((bridge.flags as { autonomousWrites: boolean }).autonomousWrites = true), TypeError, 'flags are frozen');
});

test('prompt reads return the read-only envelope of the reference around a bounded view', () => {
  const bridge = new AgentMemoryBridge({ source, now, flags: { promptViewReads: true } });
  const text = bridge.promptViewMetta({ topics: ['release'], maxChars: 90 });
  const lines = text.split('\n');
  assert.deepEqual(lines.slice(0, 5), [
    ';;; BEGIN OmegaClawPromptView oc-prompt-memory-view',
    '(OmegaClawPromptView oc-prompt-memory-view)',
    '(PromptViewSource oc-prompt-memory-view petta-memory)',
    '(PromptViewMode oc-prompt-memory-view read-only)',
    '(PromptViewGeneratedAt oc-prompt-memory-view "2026-06-29T18:10:00.000Z")',
  ]);
  assert.equal(lines.at(-2), ';;; END OmegaClawPromptView oc-prompt-memory-view');
  assert.match(text, /when is the release/);
  assert.ok(parseMetta(text).length >= 5, 'the envelope is valid MeTTa text');
});

test('index reads return a separate read-only envelope; names are configurable and validated', () => {
  const bridge = new AgentMemoryBridge({ source: () => sampleClusters(), now, flags: { indexViewReads: true }, sourceName: 'mnemos', indexViewId: 'idx-1' });
  const text = bridge.indexViewMetta({ maxChars: 200 });
  assert.match(text, /^;;; BEGIN OmegaClawIndexView idx-1\n\(OmegaClawIndexView idx-1\)\n\(IndexViewSource idx-1 mnemos\)\n\(IndexViewMode idx-1 read-only\)\n/);
  assert.match(text, /\(MM-index mc-a\)\n/);
  assert.match(text, /;;; END OmegaClawIndexView idx-1\n$/);
  assert.equal(bridge.promptViewMetta(), '', 'prompt reads stay off');
  assert.throws(() => new AgentMemoryBridge({ source, promptViewId: 'bad id' }), (e: unknown) => MnemosError.is(e, 'validation_failed'));
});
