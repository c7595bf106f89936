import type { Principal } from '../domain/principal.ts';
import type { StoreStats } from '../ports/store.ts';
import type { ServiceContext } from './context.ts';

export interface Status {
  backend: string;
  location: string;
  schemaVersion: number;
  namespace: string;
  memories: StoreStats;
  capabilities: Record<string, boolean>;
}

export async function status(ctx: ServiceContext, p: Principal): Promise<Status> {
  const memories = await ctx.store.stats(p);
  return {
    backend: ctx.store.backend,
    location: ctx.store.location,
    schemaVersion: memories.schemaVersion,
    namespace: p.namespace,
    memories,
    capabilities: { ...ctx.store.capabilities },
  };
}
