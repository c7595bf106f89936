import { MnemosError } from '../../../domain/errors.ts';
import type { History } from '../../../services/history.ts';
import type { Command } from '../command.ts';
import { json, list, num, oneLine, positional, previewOrApply, shortTime, str } from './options.ts';

export const update: Command = {
  name: 'update',
  // The memory it changes must exist: a missing store file is a typo.
  needsExistingStore: true,
  usage: 'update <id> [--text t] [--valid-to iso|none] [--expires-at iso|none] [...] [--dry-run | --yes] (previews without --yes)',
  summary: 'change a memory as a new version; preview first',
  options: {
    text: { type: 'string' },
    type: { type: 'string' },
    importance: { type: 'string' },
    tag: { type: 'string', multiple: true },
    'valid-from': { type: 'string' },
    'valid-to': { type: 'string' },
    'expires-at': { type: 'string' },
    visibility: { type: 'string' },
    metadata: { type: 'string' },
    'dry-run': { type: 'boolean' },
    yes: { type: 'boolean', short: 'y' },
  },
  async run(ctx) {
    const m = await ctx.open();
    const id = positional(ctx, 0, 'id');
    const patch: Record<string, unknown> = {};
    for (const [opt, key] of [['text', 'text'], ['type', 'type'], ['valid-from', 'validFrom'], ['visibility', 'visibility']] as const) if (str(ctx, opt) !== undefined) patch[key] = str(ctx, opt);
    if (num(ctx, 'importance') !== undefined) patch.importance = num(ctx, 'importance');
    // "none" clears a time to live, or reopens a validity the CLI had closed; anything else is an ISO time.
    for (const [opt, key] of [['expires-at', 'expiresAt'], ['valid-to', 'validTo']] as const) {
      const v = str(ctx, opt);
      if (v !== undefined) patch[key] = v === 'none' ? null : v;
    }
    if (list(ctx, 'tag')) patch.tags = list(ctx, 'tag');
    if (json(ctx, 'metadata')) patch.metadata = json(ctx, 'metadata');
    // The library's refusal names no option ("(input): nothing to change: give at least one field"); here the options are known.
    if (Object.keys(patch).length === 0) {
      throw new MnemosError('validation_failed', 'nothing to change: give at least one of --text, --type, --importance, --tag, --valid-from, --valid-to, --expires-at, --visibility, --metadata', { field: 'arguments' });
    }
    const apply = previewOrApply(ctx);
    const preview = await m.previewUpdate(id, patch as never);
    if (!apply) return { applied: false, preview, hint: 'nothing changed; run again with --yes to apply' };
    return { applied: true, preview, result: await m.confirmUpdate(preview.token) };
  },
  human: (r) =>
    [
      `${r.applied ? 'updated' : 'would update'} ${r.preview.memoryId} (v${r.preview.fromVersion} -> v${r.preview.toVersion}):`,
      ...r.preview.changes.map((c: { field: string; from: unknown; to: unknown }) => `  ${c.field}: ${JSON.stringify(c.from)} -> ${JSON.stringify(c.to)}`),
      r.applied ? `new version ${r.result.id}` : r.hint,
    ].join('\n'),
};

export const forget: Command = {
  name: 'forget',
  needsExistingStore: true,
  usage: 'forget <id> [--dry-run | --yes] [--reason r] (previews without --yes)',
  summary: 'remove a memory from every place it lives; preview first',
  options: { reason: { type: 'string' }, 'dry-run': { type: 'boolean' }, yes: { type: 'boolean', short: 'y' } },
  async run(ctx) {
    const apply = previewOrApply(ctx);
    const m = await ctx.open();
    const preview = await m.forget(positional(ctx, 0, 'id'), str(ctx, 'reason') ?? 'requested from the CLI');
    if (!apply) return { applied: false, preview, hint: 'nothing changed; run again with --yes to forget' };
    return { applied: true, preview, result: await m.confirmForget(preview.token) };
  },
  human: (r) =>
    [
      `${r.applied ? 'forgot' : 'would forget'} ${r.preview.lineageId} (${r.preview.versions} version${r.preview.versions === 1 ? '' : 's'}): "${oneLine(r.preview.text, 70)}"`,
      ...(r.preview.note ? [`  note: ${r.preview.note}`] : []),
      ...((r.preview.mergedDuplicates ?? []) as { lineageId: string; versions: number; text: string }[]).map(
        (d) => `  with ${d.lineageId}, merged into it as a duplicate (${d.versions} version${d.versions === 1 ? '' : 's'}): "${oneLine(d.text, 60)}"`,
      ),
      `  removes: ${Object.entries(r.preview.removes as Record<string, number>).map(([k, v]) => `${k} ${v}`).join(', ')}`,
      `  keeps: ${r.preview.keeps}`,
      ...(r.applied ? [] : [r.hint]),
    ].join('\n'),
};

export const historyCmd: Command = {
  name: 'history',
  needsExistingStore: true,
  usage: 'history <id>',
  summary: 'all versions of a memory and its audit entries',
  async run(ctx) {
    return (await ctx.open()).history(positional(ctx, 0, 'id'));
  },
  human: (h: History) =>
    [
      `memory ${h.lineageId}${h.tombstone ? ` (forgotten ${shortTime(h.tombstone.forgottenAt)} by ${h.tombstone.actor}: ${h.tombstone.reason})` : ''}`,
      ...h.versions.map((v) => `  v${v.version} ${v.id}  recorded ${shortTime(v.recordedAt)}${v.supersededAt ? `  superseded ${shortTime(v.supersededAt)}` : '  current'}\n     ${oneLine(v.text, 90)}`),
      'audit:',
      ...h.audit.map((a) => `  ${a.seq !== undefined ? `#${a.seq} ` : ''}${shortTime(a.at)} ${a.action.padEnd(9)} ${a.actor}  ${a.memoryId ?? ''}`),
    ].join('\n'),
};
