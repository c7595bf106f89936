import { CYCLE_KEY_PREFIX, OWNER_MARKED_LABEL, SAFETY_AUDIT_LABEL, type Memory, type Visibility } from './memory.ts';
import { MnemosError } from './errors.ts';

export const ROLES = ['owner', 'agent', 'guest'] as const;
export type Role = (typeof ROLES)[number];

/** The role with its article, for messages: "an owner", "an agent", "a guest". */
export function withArticle(role: Role): string {
  return `${role === 'guest' ? 'a' : 'an'} ${role}`;
}

/**
 * Who is calling. Required by every read and write of the store port: there is
 * no default principal, so a forgotten scope is a type error, not a data leak.
 */
export interface Principal {
  role: Role;
  namespace: string;
  /** Stable id of the caller (token id, user id, `system`). Memories it writes carry it as ownerId. */
  id: string;
  /** For agents and the guests of one agent: which agent they act for. */
  agentId?: string;
}

/**
 * The read rule, as data. Every adapter turns this into its query language in
 * one function, and `canRead` is the same rule for a record already in hand.
 */
export interface ReadScope {
  namespace: string;
  /** Owner: sees everything in the namespace. */
  all: boolean;
  principalId: string;
  agentId: string | null;
}

export function readScope(p: Principal): ReadScope {
  assertPrincipal(p);
  return { namespace: p.namespace, all: p.role === 'owner', principalId: p.id, agentId: p.agentId ?? null };
}

export function canRead(p: Principal, m: Pick<Memory, 'namespace' | 'visibility' | 'ownerId' | 'agentId'>): boolean {
  const s = readScope(p);
  if (m.namespace !== s.namespace) return false;
  if (s.all) return true;
  if (m.ownerId === s.principalId) return true;
  if (m.visibility === 'public') return true;
  if (m.visibility === 'shared') return m.agentId === null || m.agentId === s.agentId;
  return false;
}

/** Owners may change anything in their namespace; others only what they wrote. */
export function canWrite(p: Principal, m: Pick<Memory, 'namespace' | 'ownerId'>): boolean {
  if (m.namespace !== p.namespace) return false;
  return p.role === 'owner' || m.ownerId === p.id;
}

/**
 * What only an owner may claim about a memory it hands in. A read-only memory
 * can never be edited or forgotten, and `origin: cycle` with the SafetyAudit
 * label is how the SLEEP phase marks its safety trail (and owner-marked the
 * owner's own notes): from a guest, either
 * would plant a memory the owner cannot remove or a forged safety episode. An
 * agent id says whose shared scope a memory lives in, so others may only give
 * their own. (The cognitive cycle writes its episodes through the store, not
 * through this rule.)
 */
/**
 * Labels that speak for the owner or the engine: the safety trail, and the
 * owner-marked blocks of the owner's own notes (never merged or rewritten).
 * Compared without case, so "safetyaudit" claims nothing either.
 */
const OWNER_LABELS: readonly string[] = [SAFETY_AUDIT_LABEL.toLowerCase(), OWNER_MARKED_LABEL];

export function assertMayClaim(p: Principal, m: { readOnly: boolean; origin: string; labels: readonly string[]; agentId: string | null; sourceKey?: string | null }): void {
  // Retrieval at PERCEPTION lists episodes keyed cycle:... by salience and keeps the cycle's own: twenty
  // look-alikes a guest wrote under such keys took every place, and the owner's cycle retrieved nothing.
  if (m.sourceKey?.startsWith(CYCLE_KEY_PREFIX) && m.origin !== 'cycle') {
    throw new MnemosError('validation_failed', `source keys starting with "${CYCLE_KEY_PREFIX}" belong to the cognitive cycle's episodes; choose another key`, { field: 'key' });
  }
  if (p.role === 'owner') return;
  const refuse = (field: string, what: string) => {
    throw new MnemosError('forbidden', `only the namespace's owner may ${what}`, { field });
  };
  if (m.readOnly) refuse('readOnly', 'write a read-only memory');
  if (m.origin === 'cycle') refuse('origin', 'write memories with origin "cycle" (the cognitive cycle writes those itself)');
  const reserved = m.labels.find((l) => OWNER_LABELS.includes(l.toLowerCase()));
  if (reserved !== undefined) refuse('labels', `label a memory "${reserved}"`);
  if (m.agentId !== null && m.agentId !== (p.agentId ?? null)) refuse('agentId', `write for agent "${m.agentId}"${p.agentId ? ` (you act for "${p.agentId}")` : ''}`);
}

/** Visibility a new memory gets when the caller names none. */
export function defaultVisibility(p: Principal): Visibility {
  return p.role === 'owner' ? 'owner' : 'shared';
}

const NAMESPACE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export function assertPrincipal(p: Principal): void {
  if (!p || typeof p !== 'object') throw new MnemosError('unauthorized', 'a principal is required for every store call');
  if (!(ROLES as readonly string[]).includes(p.role)) throw new MnemosError('unauthorized', `unknown role "${String(p.role)}"`);
  if (typeof p.namespace !== 'string' || !NAMESPACE_RE.test(p.namespace))
    throw new MnemosError('validation_failed', `invalid namespace "${String(p.namespace)}": use 1-64 letters, digits, . _ -`, { field: 'namespace' });
  if (typeof p.id !== 'string' || p.id.length === 0) throw new MnemosError('unauthorized', 'principal id is required');
}

export function isValidNamespace(ns: string): boolean {
  return NAMESPACE_RE.test(ns);
}

/** The local owner used by the CLI and the embedded library when no token is involved. */
export function localOwner(namespace = 'default'): Principal {
  return { role: 'owner', namespace, id: 'owner' };
}
