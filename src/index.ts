/** Public entry point of the Mnemos library. Importing it does nothing but define things. */
export { openMemory, Mnemos, type OpenMemoryOptions } from './surfaces/library/open-memory.ts';
export { MnemosError, ERROR_CODES, type ErrorCode } from './domain/errors.ts';
export type { Memory, MemoryType, Lifecycle, Origin, Visibility, SourceRef } from './domain/memory.ts';
export { MEMORY_TYPES, LIFECYCLES, ORIGINS, VISIBILITIES } from './domain/memory.ts';
export type { Principal, Role } from './domain/principal.ts';
export { localOwner } from './domain/principal.ts';
export type { RememberInput, MemoryPatch, SearchInput, ListInput } from './services/inputs.ts';
export type { MemoryStore } from './ports/store.ts';
export type { MigrationProgress, MigrationProgressListener } from './ports/migration-progress.ts';
export { startScheduler, type SchedulerOptions } from './lifecycle/scheduler.ts';
export type { LifecycleConfig } from './lifecycle/config.ts';
export type { ConsolidationReport } from './lifecycle/consolidate.ts';
export { graphCandidates } from './graph/graph-query.ts';
export { ledgerExactHits } from './lifecycle/ledger.ts';
