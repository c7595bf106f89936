import { MnemosError } from '../../domain/errors.ts';
import { DEFAULT_LIFECYCLE_CONFIG, MAX_TIMER_MS, type LifecycleConfig } from '../../lifecycle/config.ts';
import { DEFAULT_CONFIG } from '../../services/context.ts';
import { DEFAULT_VECTOR_INDEX } from '../../ports/vectors.ts';

/**
 * What `openMemory` takes, checked before anything is opened. It read only
 * the fields it knew, so a mistake opened some other store, or failed much
 * later: `openMemory('./my.db')` and `openMemory({ path: './my.db' })`
 * created ./.mnemos/memory.db; `config: { embeddings: { provider: 'openAI' } }`
 * made every write an internal error ("reading 'maxBatch'"); a NaN or
 * negative lifecycle setting was taken as given.
 */
const OPTION_KEYS = ['db', 'principal', 'config', 'now', 'lifecycle', 'onProgress'] as const;
const CONFIG_KEYS = [...Object.keys(DEFAULT_CONFIG), 'journalPath', 'journalBridge'];
const PROVIDERS = ['builtin', 'off', 'openai', 'onnx'];

/** Lifecycle settings by kind: durations in ms (0 allowed), similarity thresholds, counts of memories or entries, and the training growth factor. */
const COUNTS = new Set<keyof LifecycleConfig>(['graphBatch', 'graphReindexBatch', 'vectorBatch', 'vectorLogKeep', 'memoryLogKeep', 'modelMinTexts']);
const THRESHOLDS = new Set<keyof LifecycleConfig>(['textDuplicateThreshold', 'vectorDuplicateThreshold']);

const bad = (field: string, message: string): never => {
  throw new MnemosError('validation_failed', `openMemory: ${field} ${message}`, { field });
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function knownKeys(value: Record<string, unknown>, known: readonly string[], where: string): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) bad(where ? `${where}.${key}` : key, `is not an option; the options are ${known.join(', ')}`);
  }
}

/** Refuses options openMemory would misread; returns them with the vector index settings completed from the defaults. */
export function checkOpenOptions<T extends object>(opts: T | undefined | null): T {
  if (opts === undefined || opts === null) return {} as T;
  if (!isObject(opts)) return bad('(options)', `takes an options object such as { db: './memory.db' }, not ${Array.isArray(opts) ? 'an array' : `a ${typeof opts}`}`);
  knownKeys(opts, OPTION_KEYS, '');
  const o = opts as Record<string, unknown>;
  // An empty path is the working folder, which the store's own check refuses as a folder, naming it.
  if (o.db !== undefined && typeof o.db !== 'string') bad('db', 'must be a SQLite file path or a postgres:// URL (a string)');
  if (o.now !== undefined && typeof o.now !== 'function') bad('now', 'must be a function returning the time in milliseconds');
  if (o.lifecycle !== undefined) checkLifecycle(o.lifecycle);
  return o.config === undefined ? opts : { ...opts, config: checkConfig(o.config) };
}

function checkConfig(config: unknown): Record<string, unknown> {
  if (!isObject(config)) return bad('config', 'must be an object of engine settings');
  knownKeys(config, CONFIG_KEYS, 'config');
  const embeddings = config.embeddings;
  if (embeddings !== undefined && !(isObject(embeddings) && PROVIDERS.includes(embeddings.provider as string))) {
    bad('config.embeddings.provider', `must be one of ${PROVIDERS.join(', ')}${isObject(embeddings) ? `, not ${JSON.stringify(embeddings.provider)}` : ''}`);
  }
  const index = config.vectorIndex;
  if (index === undefined) return config;
  if (!isObject(index)) return bad('config.vectorIndex', 'must be an object such as { mode: "exact" }');
  // README shows { mode, threshold }: either alone keeps the other's default instead of failing on it.
  return { ...config, vectorIndex: { ...DEFAULT_VECTOR_INDEX, ...index } };
}

function checkLifecycle(lifecycle: unknown): void {
  if (!isObject(lifecycle)) return bad('lifecycle', 'must be an object of lifecycle settings');
  knownKeys(lifecycle, Object.keys(DEFAULT_LIFECYCLE_CONFIG), 'lifecycle');
  for (const [key, value] of Object.entries(lifecycle) as [keyof LifecycleConfig, unknown][]) {
    if (value === undefined) continue;
    const field = `lifecycle.${key}`;
    if (typeof value !== 'number' || !Number.isFinite(value)) bad(field, `must be a finite number, not ${String(value)}`);
    const n = value as number;
    if (COUNTS.has(key) && !(Number.isSafeInteger(n) && n >= 1)) bad(field, `must be a whole number from 1, not ${n}`);
    else if (THRESHOLDS.has(key) && !(n >= 0 && n <= 1)) bad(field, `must be a similarity from 0 to 1, not ${n}`);
    else if (key === 'modelGrowth' && !(n > 1)) bad(field, `must be above 1 (the factor the namespace grows by before the next training), not ${n}`);
    else if (key === 'leaseMs' && !(n > 0)) bad(field, `must be a duration in milliseconds above 0, not ${n}`);
    else if (key === 'consolidationIntervalMs' && !(n >= 1 && n <= MAX_TIMER_MS)) bad(field, `must be a number of milliseconds from 1 to ${MAX_TIMER_MS} (a timer's longest), not ${n}`);
    else if (n < 0) bad(field, `must be a duration in milliseconds, 0 or more, not ${n}`);
  }
}
