/**
 * The memory model shared by all three seeds: a Bitterbot "knowledge crystal",
 * an ASI:BUILD episode and a petta-memory cluster all map onto this record.
 * Pure types and constants only.
 */

export const MEMORY_TYPES = [
  'fact',
  'preference',
  'task_pattern',
  'skill',
  'episode',
  'insight',
  'relationship',
  'goal',
  'general',
] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const LIFECYCLES = ['generated', 'activated', 'consolidated', 'archived', 'expired', 'frozen'] as const;
export type Lifecycle = (typeof LIFECYCLES)[number];

/** Where a memory came from. `cycle` = consolidated from the cognitive-cycle blackboard (seed 000). */
export const ORIGINS = ['user_input', 'transcript', 'file', 'tool', 'dream', 'inferred', 'peer', 'import', 'cycle'] as const;
export type Origin = (typeof ORIGINS)[number];

/**
 * Who may read a memory besides the namespace owner:
 * - `owner`: owner-only (and the principal that wrote it);
 * - `shared`: also guests and agents of the agent it belongs to (all of them when it has no agentId);
 * - `public`: every principal of the namespace.
 */
export const VISIBILITIES = ['owner', 'shared', 'public'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/**
 * A reference precise enough to read the exact source back: a file and a
 * 1-based inclusive line range, or a transcript session and a turn range, or a
 * key (blackboard key, client key, journal cluster id).
 */
export interface SourceRef {
  path?: string;
  lineStart?: number;
  lineEnd?: number;
  sessionId?: string;
  turnStart?: number;
  turnEnd?: number;
  key?: string;
  uri?: string;
}

export interface Memory {
  /** Id of this version (ULID, time-sortable). */
  id: string;
  /** Id of the first version; shared by every version of one memory. */
  lineageId: string;
  version: number;
  text: string;
  contentHash: string;
  type: MemoryType;
  /** Base strength S in the Ebbinghaus form, 0..1. */
  importance: number;
  accessCount: number;
  lastAccessedAt: string | null;
  emotionalValence: number;
  salience: number;
  lifecycle: Lifecycle;
  /** Valid time: when this is true in the world. */
  validFrom: string;
  validTo: string | null;
  /** Transaction time: when the store learned it and when it was retired. */
  recordedAt: string;
  supersededAt: string | null;
  supersededBy: string | null;
  origin: Origin;
  source: SourceRef;
  /** The source's identity (file + lines, session + turn, a client key); idempotency is keyed on it. */
  sourceKey: string | null;
  namespace: string;
  ownerId: string;
  agentId: string | null;
  sessionId: string | null;
  visibility: Visibility;
  /** Extra labels, e.g. `SafetyAudit` on safety episodes (seed 000). */
  labels: string[];
  /** Read-only memories refuse update, edit and forget. */
  readOnly: boolean;
  tags: string[];
  metadata: Record<string, unknown>;
  expiresAt: string | null;
}

/** Labels with a meaning to the engine. */
export const SAFETY_AUDIT_LABEL = 'SafetyAudit';
/** The source-key prefix of the cognitive cycle's episodes (`cycle:<event id>`), reserved for them. */
export const CYCLE_KEY_PREFIX = 'cycle:';
/** Chunks of the owner's own notes the owner marked: never rewritten or merged (lifecycle/owner-marked.ts). */
export const OWNER_MARKED_LABEL = 'owner-marked';

type Scoped = Pick<Memory, 'namespace' | 'ownerId' | 'agentId' | 'visibility'>;

/** The scope a memory is read under: its namespace, owner, agent and visibility, as one key. */
export function scopeKey(m: Scoped): string {
  return [m.namespace, m.ownerId, m.agentId ?? '', m.visibility].join('\u0000');
}

/** Whether two memories are read under one scope. */
export function sameScope(a: Scoped, b: Scoped): boolean {
  return scopeKey(a) === scopeKey(b);
}
