import type { Memory, SourceRef } from '../../domain/memory.ts';

export interface Citation extends SourceRef {
  /** Human form: `path:3-7` or `session s1 turns 3-4`. */
  cite: string;
}

/** Where a memory came from, precise enough to read it back with memory_get or recall_range. */
export function citation(m: Memory): Citation {
  const s = m.source;
  let cite = m.sourceKey ?? m.origin;
  if (s.path && s.lineStart) cite = `${s.path}:${s.lineStart}-${s.lineEnd ?? s.lineStart}`;
  else if (s.sessionId && s.turnStart !== undefined) cite = `session ${s.sessionId} turn${s.turnEnd && s.turnEnd !== s.turnStart ? `s ${s.turnStart}-${s.turnEnd}` : ` ${s.turnStart}`}`;
  return { ...s, cite };
}
