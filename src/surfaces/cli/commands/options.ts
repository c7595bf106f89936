import { MnemosError } from '../../../domain/errors.ts';
import type { CommandContext } from '../command.ts';

/** Small parsers for option values, each failing with a message that names the option. */
export function str(ctx: CommandContext, name: string): string | undefined {
  const v = ctx.values[name];
  return typeof v === 'string' ? v : undefined;
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function num(ctx: CommandContext, name: string): number | undefined {
  const v = str(ctx, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  // Number() reads '' and ' ' as 0 (an empty --importance stored strength 0)
  // and '0x1', '0b1', '0o7' as numbers nobody meant: only decimals pass.
  if (!DECIMAL.test(v.trim()) || !Number.isFinite(n)) throw new MnemosError('validation_failed', `--${name} must be a number, got "${v}"`, { field: name });
  return n;
}

export function list(ctx: CommandContext, name: string): string[] | undefined {
  const v = ctx.values[name];
  if (v === undefined) return undefined;
  const items = (Array.isArray(v) ? v : [String(v)]).flatMap((s) => s.split(',')).map((s) => s.trim());
  // Dropping an empty item left `--tag ''` no filter at all: a search of everything, an add without the tag.
  if (items.some((s) => s === '')) throw new MnemosError('validation_failed', `--${name} has an empty value; give one or more values separated by commas`, { field: name });
  return items;
}

export function positional(ctx: CommandContext, index: number, what: string): string {
  const v = ctx.args[index];
  if (v === undefined) throw new MnemosError('validation_failed', `missing ${what}; see --help`, { field: what });
  return v;
}

export function json(ctx: CommandContext, name: string): Record<string, unknown> | undefined {
  const v = str(ctx, name);
  if (v === undefined) return undefined;
  try {
    const parsed = JSON.parse(v);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  } catch {
    // fall through to the error below
  }
  throw new MnemosError('validation_failed', `--${name} must be a JSON object such as '{"k":"v"}'`, { field: name });
}

export const FILTER_OPTIONS = {
  type: { type: 'string', multiple: true },
  tag: { type: 'string', multiple: true },
  lifecycle: { type: 'string', multiple: true },
  since: { type: 'string' },
  until: { type: 'string' },
  'as-of': { type: 'string' },
  'known-at': { type: 'string' },
  session: { type: 'string' },
} as const;

export function filterFrom(ctx: CommandContext): Record<string, unknown> {
  const f: Record<string, unknown> = {};
  const types = list(ctx, 'type');
  if (types) f.types = types;
  const tags = list(ctx, 'tag');
  if (tags) f.tags = tags;
  const lc = list(ctx, 'lifecycle');
  if (lc) f.lifecycles = lc;
  for (const [opt, key] of [['since', 'since'], ['until', 'until'], ['as-of', 'asOf'], ['known-at', 'knownAt'], ['session', 'sessionId']] as const) {
    const v = str(ctx, opt);
    if (v !== undefined) f[key] = v;
  }
  return f;
}

export function shortTime(iso: string | null): string {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-';
}

export function oneLine(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * `--yes` applies a previewed change, `--dry-run` only shows it. Given both,
 * the old code applied it: a dry run that forgets a memory for good.
 */
export function previewOrApply(ctx: CommandContext): boolean {
  if (ctx.values.yes && ctx.values['dry-run']) throw new MnemosError('validation_failed', 'give --dry-run (show the change) or --yes (apply it), not both; nothing was changed', { field: 'dry-run' });
  return ctx.values.yes === true;
}
