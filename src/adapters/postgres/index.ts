/** The PostgreSQL backend, loaded with a dynamic import so SQLite-only users never load pg. */
export { PgStore, type PgStoreOptions } from './store.ts';
export { PG_LATEST_SCHEMA_VERSION } from './migrations.ts';
