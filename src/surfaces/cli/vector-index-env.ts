import { MnemosError } from '../../domain/errors.ts';
import { DEFAULT_VECTOR_INDEX, type VectorIndexConfig, type VectorIndexMode } from '../../ports/vectors.ts';

const MODES: VectorIndexMode[] = ['auto', 'exact', 'approximate'];

/**
 * Reads the vector index choice from the environment (the CLI and server are
 * the only places that read it): MNEMOS_VECTOR_INDEX=auto|exact|approximate
 * and MNEMOS_VECTOR_INDEX_THRESHOLD (vectors per namespace and model above
 * which `auto` uses the approximate index), MNEMOS_VECTOR_GRAPH_DIR (where
 * built graphs are saved; `off` saves none).
 */
export function vectorIndexConfigFromEnv(env: NodeJS.ProcessEnv): VectorIndexConfig {
  const mode = (env.MNEMOS_VECTOR_INDEX || DEFAULT_VECTOR_INDEX.mode).toLowerCase() as VectorIndexMode;
  if (!MODES.includes(mode)) {
    throw new MnemosError('validation_failed', `MNEMOS_VECTOR_INDEX must be auto, exact or approximate, not "${env.MNEMOS_VECTOR_INDEX}"`, { field: 'MNEMOS_VECTOR_INDEX' });
  }
  const raw = env.MNEMOS_VECTOR_INDEX_THRESHOLD;
  const threshold = raw ? Number(raw.replace(/_/g, '')) : DEFAULT_VECTOR_INDEX.threshold;
  if (!(Number.isInteger(threshold) && threshold >= 0)) {
    throw new MnemosError('validation_failed', `MNEMOS_VECTOR_INDEX_THRESHOLD must be a whole number of vectors >= 0, not "${raw}"`, { field: 'MNEMOS_VECTOR_INDEX_THRESHOLD' });
  }
  const dir = env.MNEMOS_VECTOR_GRAPH_DIR;
  if (dir === undefined || dir === '') return { mode, threshold };
  return { mode, threshold, graphDir: dir.toLowerCase() === 'off' ? null : dir };
}
