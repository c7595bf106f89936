import type { Memory } from '../../../domain/memory.ts';
import type { SearchResult } from '../../../services/search.ts';
import type { Command } from '../command.ts';
import { FILTER_OPTIONS, filterFrom, json, list, num, oneLine, positional, shortTime, str } from './options.ts';

function citation(m: Memory): string {
  const s = m.source;
  if (s.path && s.lineStart) return `${s.path}:${s.lineStart}-${s.lineEnd ?? s.lineStart}`;
  if (s.sessionId && s.turnStart !== undefined) return `session ${s.sessionId} turn ${s.turnStart}${s.turnEnd && s.turnEnd !== s.turnStart ? `-${s.turnEnd}` : ''}`;
  return m.sourceKey ?? m.origin;
}

export function renderMemory(m: Memory): string {
  return [
    `${m.id}  v${m.version}  ${m.type}  ${m.lifecycle}${m.supersededAt ? `  (superseded by ${m.supersededBy ?? 'nothing'})` : ''}`,
    m.text,
    `  valid ${shortTime(m.validFrom)} .. ${shortTime(m.validTo)}   recorded ${shortTime(m.recordedAt)}   source ${citation(m)}`,
    `  importance ${m.importance}  salience ${m.salience}  visibility ${m.visibility}${m.tags.length ? `  tags ${m.tags.join(',')}` : ''}${m.labels.length ? `  labels ${m.labels.join(',')}` : ''}`,
  ].join('\n');
}

export const add: Command = {
  name: 'add',
  usage: 'add <text>',
  summary: 'store a memory',
  options: {
    type: { type: 'string' },
    importance: { type: 'string' },
    tag: { type: 'string', multiple: true },
    key: { type: 'string' },
    session: { type: 'string' },
    'valid-from': { type: 'string' },
    'valid-to': { type: 'string' },
    visibility: { type: 'string' },
    'expires-at': { type: 'string' },
    metadata: { type: 'string' },
  },
  async run(ctx) {
    const m = await ctx.open();
    const input: Record<string, unknown> = { text: positional(ctx, 0, 'text') };
    const pairs: [string, string][] = [['type', 'type'], ['key', 'key'], ['session', 'sessionId'], ['valid-from', 'validFrom'], ['valid-to', 'validTo'], ['visibility', 'visibility'], ['expires-at', 'expiresAt']];
    for (const [opt, key] of pairs) if (str(ctx, opt) !== undefined) input[key] = str(ctx, opt);
    if (num(ctx, 'importance') !== undefined) input.importance = num(ctx, 'importance');
    if (list(ctx, 'tag')) input.tags = list(ctx, 'tag');
    if (json(ctx, 'metadata')) input.metadata = json(ctx, 'metadata');
    return m.remember(input as never);
  },
  human: (r) =>
    r.status === 'unchanged'
      ? `unchanged: ${r.id} (same source key, same text)`
      : r.status === 'forgotten'
        ? `not stored: this key with this text was forgotten (memory ${r.id}); use another key to store it again`
        : `${r.status} ${r.id}`,
};

export const get: Command = {
  name: 'get',
  needsExistingStore: true,
  usage: 'get <id>',
  summary: 'show one memory',
  async run(ctx) {
    return (await ctx.open()).get(positional(ctx, 0, 'id'));
  },
  human: (m: Memory) => renderMemory(m),
};

export const search: Command = {
  name: 'search',
  needsExistingStore: true,
  usage: 'search <query>',
  summary: 'ranked search; says what was searched when nothing matches',
  options: { limit: { type: 'string' }, offset: { type: 'string' }, 'min-score': { type: 'string' }, ...FILTER_OPTIONS },
  async run(ctx) {
    const m = await ctx.open();
    const input: Record<string, unknown> = { query: positional(ctx, 0, 'query'), filter: filterFrom(ctx) };
    if (num(ctx, 'limit') !== undefined) input.limit = num(ctx, 'limit');
    if (num(ctx, 'offset') !== undefined) input.offset = num(ctx, 'offset');
    if (num(ctx, 'min-score') !== undefined) input.minScore = num(ctx, 'min-score');
    return m.search(input as never);
  },
  human: (r: SearchResult) => {
    // Pinned ledger facts come first in a search, as in --json; without them a pin-only answer read as "nothing found".
    const facts = r.ledger.map((f) => `  * ${f.key} = ${f.value}${f.statement ? `  (${oneLine(f.statement)})` : ''}  [ledger, confidence ${f.confidence}]`);
    const hits =
      r.hits.length === 0
        ? [`${facts.length ? 'no memories matched' : 'nothing found'}. ${r.explain.message ?? ''}`]
        : r.hits.map((h, i) => `${String(i + 1).padStart(2)}. [${h.score.toFixed(4)}] ${oneLine(h.memory.text)}\n    ${h.memory.id}  ${citation(h.memory)}  matched: ${h.why.matchedTerms.join(', ')}`);
    const more = r.nextOffset !== null ? [`(more results: --offset ${r.nextOffset})`] : r.hasMore ? ['(more results match, past the deepest page a search gives)'] : [];
    return [...facts, ...hits, ...more].join('\n');
  },
};

export const listCmd: Command = {
  name: 'list',
  needsExistingStore: true,
  usage: 'list',
  summary: 'list memories, newest first, with filters and paging',
  options: { limit: { type: 'string' }, offset: { type: 'string' }, order: { type: 'string' }, cursor: { type: 'string' }, ...FILTER_OPTIONS },
  async run(ctx) {
    const m = await ctx.open();
    const input: Record<string, unknown> = { filter: filterFrom(ctx) };
    if (num(ctx, 'limit') !== undefined) input.limit = num(ctx, 'limit');
    if (num(ctx, 'offset') !== undefined) input.offset = num(ctx, 'offset');
    if (str(ctx, 'order')) input.order = str(ctx, 'order');
    if (str(ctx, 'cursor') !== undefined) input.cursor = str(ctx, 'cursor');
    return m.list(input as never);
  },
  human: (r: { items: Memory[]; total: number; offset: number }) =>
    [...r.items.map((m) => `${m.id}  ${m.type.padEnd(12)} ${shortTime(m.recordedAt)}  ${oneLine(m.text, 80)}`), `(${r.items.length} of ${r.total}, from ${r.offset})`].join('\n'),
};
