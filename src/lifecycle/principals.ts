import type { Principal } from '../domain/principal.ts';

/**
 * The engine's own hand for bookkeeping that any reader's use should cause
 * (recall boosts, scheduled consolidation). Audit entries name it, so these
 * changes are never mistaken for the owner's.
 */
export function lifecyclePrincipal(namespace: string): Principal {
  return { role: 'owner', namespace, id: 'mnemos-lifecycle' };
}
