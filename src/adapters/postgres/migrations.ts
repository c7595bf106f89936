import { refuseNewerSchema } from '../newer-schema.ts';
import { quoteSchema } from './connection.ts';
import type pg from 'pg';
import { reanalyzeTextsPg } from './reanalyze-texts.ts';
import { rekeyGraphNamesPg } from './graph-rekey.ts';
import { analyzedDifferentlyThanV1 } from '../../retrieval/text/analyze.ts';
import type { MigrationProgressListener, TextProgress } from '../../ports/migration-progress.ts';
import { ensureStoreIdentity } from './store-identity.ts';

/**
 * Numbered migrations for PostgreSQL, mirroring the SQLite ones. They run
 * under a transaction-scoped advisory lock, so several servers starting at
 * once apply each migration exactly once; DDL is transactional here, so a
 * failed migration leaves no half-built schema. Never edit a released
 * migration: add the next number.
 */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
  /** Work SQL cannot do (analysing text), after `sql`, in the same transaction; long work reports through `progress`. */
  run?: (c: pg.PoolClient, analyze: (text: string) => string[], progress: TextProgress | undefined) => Promise<unknown>;
}

/** Any fixed 64-bit key; it only has to differ from other advisory-lock users of the database. */
const MIGRATION_LOCK_KEY = 0x6d6e656d6f73; // "mnemos"

export const PG_MIGRATIONS: PgMigration[] = [
  {
    version: 1,
    name: 'memories with tsvector, audit log with chain head, tombstones, pending changes',
    sql: `
CREATE TABLE memories (
  id TEXT COLLATE "C" PRIMARY KEY,
  lineage_id TEXT COLLATE "C" NOT NULL,
  version INTEGER NOT NULL,
  text TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  type TEXT NOT NULL,
  importance DOUBLE PRECISION NOT NULL,
  access_count INTEGER NOT NULL DEFAULT 0,
  last_accessed_at BIGINT,
  emotional_valence DOUBLE PRECISION NOT NULL DEFAULT 0,
  salience DOUBLE PRECISION NOT NULL DEFAULT 0,
  lifecycle TEXT NOT NULL,
  valid_from BIGINT NOT NULL,
  valid_to BIGINT,
  recorded_at BIGINT NOT NULL,
  superseded_at BIGINT,
  superseded_by TEXT,
  origin TEXT NOT NULL,
  source TEXT NOT NULL,
  source_key TEXT COLLATE "C",
  namespace TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  agent_id TEXT,
  session_id TEXT,
  visibility TEXT NOT NULL,
  labels JSONB NOT NULL,
  read_only INTEGER NOT NULL DEFAULT 0,
  tags JSONB NOT NULL,
  metadata TEXT NOT NULL,
  expires_at BIGINT,
  doc_len INTEGER NOT NULL DEFAULT 0,
  -- The analysed terms (stemmed, stop words out) joined by spaces; 'simple' only splits and lower-cases them.
  terms TEXT NOT NULL DEFAULT '',
  tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', terms)) STORED
);
-- Source keys are idempotency keys of one writer: the same key from another principal is another memory.
CREATE UNIQUE INDEX memories_current_source ON memories(namespace, owner_id, source_key) WHERE source_key IS NOT NULL AND superseded_at IS NULL;
CREATE INDEX memories_lineage ON memories(lineage_id, version);
CREATE INDEX memories_recorded ON memories(namespace, recorded_at);
CREATE INDEX memories_valid ON memories(namespace, valid_from);
CREATE INDEX memories_session ON memories(namespace, session_id) WHERE session_id IS NOT NULL;
CREATE INDEX memories_episodes ON memories(namespace, type, salience, valid_from);
CREATE INDEX memories_tsv ON memories USING GIN (tsv);
CREATE INDEX memories_tags ON memories USING GIN (tags);

CREATE TABLE audit_log (
  seq BIGINT PRIMARY KEY,
  at TEXT NOT NULL,
  actor TEXT NOT NULL,
  namespace TEXT NOT NULL,
  action TEXT NOT NULL,
  memory_id TEXT,
  before_hash TEXT,
  after_hash TEXT,
  details TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX audit_memory ON audit_log(memory_id);
-- Writers lock this one row FOR UPDATE before appending, so concurrent processes never fork the chain.
CREATE TABLE audit_head (
  one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
  seq BIGINT NOT NULL DEFAULT 0,
  hash TEXT
);
INSERT INTO audit_head (one, seq, hash) VALUES (true, 0, NULL);
-- Defence in depth; the hash chain is what detects tampering that drops these.
CREATE FUNCTION mnemos_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'audit log is append-only'; END $$;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION mnemos_audit_append_only();

CREATE TABLE tombstones (
  lineage_id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  agent_id TEXT,
  visibility TEXT NOT NULL,
  version_ids TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  forgotten_at TEXT NOT NULL,
  actor TEXT NOT NULL,
  reason TEXT NOT NULL
);
CREATE TABLE tombstone_ids (id TEXT PRIMARY KEY, lineage_id TEXT NOT NULL REFERENCES tombstones(lineage_id));

CREATE TABLE pending_changes (
  token_hash TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  namespace TEXT NOT NULL,
  actor TEXT NOT NULL,
  subject_id TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  payload TEXT NOT NULL
);
CREATE INDEX pending_subject ON pending_changes(subject_id);
`,
  },
  {
    version: 2,
    name: 'bearer tokens (hashes only)',
    sql: `
CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL,
  namespace TEXT NOT NULL,
  principal_id TEXT NOT NULL,
  agent_id TEXT,
  label TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX tokens_namespace ON tokens(namespace, created_at);
`,
  },
  {
    version: 3,
    name: 'term document frequencies for BM25 weights',
    sql: `
-- Kept by every write in the writers' transaction, like FTS5's vocabulary: rows of every
-- stored version count, forget subtracts. Reading IDF is then one index look-up per term.
CREATE TABLE term_df (term TEXT PRIMARY KEY, df BIGINT NOT NULL);
CREATE TABLE fts_docs (one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one), documents BIGINT NOT NULL, total_len BIGINT NOT NULL);
INSERT INTO term_df (term, df) SELECT lexeme, count(*) FROM memories, unnest(tsv) GROUP BY lexeme;
INSERT INTO fts_docs (one, documents, total_len) SELECT true, count(*), coalesce(sum(doc_len), 0) FROM memories;
-- The tag filter is an EXISTS over jsonb_array_elements_text, which this index cannot serve; it only slowed ingest.
DROP INDEX IF EXISTS memories_tags;
`,
  },
  {
    version: 4,
    name: 'lifecycle jobs with leases, expiry ledger',
    sql: `
CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  holder TEXT NOT NULL,
  lease_expires_at BIGINT NOT NULL,
  attempts INTEGER NOT NULL,
  started_at BIGINT NOT NULL,
  finished_at BIGINT,
  phase TEXT,
  state TEXT NOT NULL,
  report TEXT,
  watermark BIGINT
);
-- At most one running job per name and namespace, whatever the process.
CREATE UNIQUE INDEX jobs_one_running ON jobs(namespace, name) WHERE status = 'running';
CREATE INDEX jobs_recent ON jobs(namespace, name, started_at);
CREATE TABLE lifecycle_expired (lineage_id TEXT PRIMARY KEY, namespace TEXT NOT NULL, expired_at BIGINT NOT NULL);
`,
  },
  {
    version: 5,
    name: 'knowledge graph',
    sql: `
CREATE TABLE graph_entities (
  id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  agent_id TEXT,
  visibility TEXT NOT NULL,
  name TEXT NOT NULL,
  norm TEXT NOT NULL,
  type TEXT NOT NULL,
  first_seen BIGINT NOT NULL,
  last_seen BIGINT NOT NULL,
  mentions INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX graph_entities_norm ON graph_entities(namespace, norm);
CREATE TABLE graph_relations (
  id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  agent_id TEXT,
  visibility TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  predicate TEXT NOT NULL,
  object_id TEXT NOT NULL,
  valid_from BIGINT NOT NULL,
  valid_to BIGINT,
  recorded_at BIGINT NOT NULL,
  superseded_by TEXT,
  confidence DOUBLE PRECISION NOT NULL
);
CREATE INDEX graph_relations_subject ON graph_relations(subject_id, predicate);
CREATE INDEX graph_relations_object ON graph_relations(object_id);
CREATE TABLE graph_evidence (
  entity_id TEXT,
  relation_id TEXT,
  lineage_id TEXT NOT NULL,
  memory_id TEXT NOT NULL,
  mention TEXT,
  norm TEXT
);
CREATE UNIQUE INDEX graph_evidence_unique ON graph_evidence(coalesce(entity_id, ''), coalesce(relation_id, ''), memory_id, coalesce(mention, ''));
CREATE INDEX graph_evidence_lineage ON graph_evidence(lineage_id);
CREATE INDEX graph_evidence_entity ON graph_evidence(entity_id);
CREATE INDEX graph_evidence_relation ON graph_evidence(relation_id);
CREATE INDEX graph_evidence_norm ON graph_evidence(norm);
CREATE TABLE graph_indexed (memory_id TEXT PRIMARY KEY, lineage_id TEXT NOT NULL);
CREATE INDEX graph_indexed_lineage ON graph_indexed(lineage_id);
`,
  },
  {
    version: 6,
    name: 'canonical ledger',
    sql: `
CREATE TABLE ledger_facts (
  id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  agent_id TEXT,
  visibility TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  statement TEXT NOT NULL,
  category TEXT NOT NULL,
  confidence DOUBLE PRECISION NOT NULL,
  mentions INTEGER NOT NULL,
  source TEXT NOT NULL,
  status TEXT NOT NULL,
  valid_from BIGINT NOT NULL,
  valid_until BIGINT,
  superseded_by TEXT,
  updated_at BIGINT NOT NULL
);
-- One active fact per key and namespace: a second one must supersede or wait.
CREATE UNIQUE INDEX ledger_active_key ON ledger_facts(namespace, key) WHERE status = 'active';
CREATE TABLE ledger_pending (
  id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  target_id TEXT NOT NULL,
  proposed TEXT NOT NULL,
  proposer TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  status TEXT NOT NULL
);
`,
  },
  {
    version: 7,
    name: 'vectors beside memories, their change log, and learned embedding models',
    sql: `
-- A number per memory row, like SQLite's rowid: the in-process vector caches and the change log
-- key rows by it (ids are text). Adding an identity column fills it for the rows already there.
ALTER TABLE memories ADD COLUMN row_no BIGINT GENERATED ALWAYS AS IDENTITY;
ALTER TABLE memories ADD CONSTRAINT memories_row_no UNIQUE (row_no);
-- float32 bytes, no extension needed; one row per memory version and model, gone with the memory.
CREATE TABLE memory_vectors (
  memory_row BIGINT NOT NULL REFERENCES memories(row_no) ON DELETE CASCADE,
  model TEXT NOT NULL,
  vector BYTEA NOT NULL,
  PRIMARY KEY (memory_row, model)
);
CREATE INDEX memory_vectors_model ON memory_vectors(model);
-- Row numbers only: lets every process keep its in-memory copy of the vectors in step.
CREATE TABLE vector_log (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, memory_row BIGINT NOT NULL);
-- A reader that has seen seq n must never later find a smaller seq committed. Taking the
-- audit chain head lock (which every writer already holds) before drawing a seq makes
-- draws and commits happen in the same order across processes.
-- Statement-level triggers with transition tables: one log insert per statement, not per row
-- (a batch of 1,000 vectors was paying 1,000 trigger calls). One trigger per event, as
-- PostgreSQL requires for transition tables; an upsert fires the insert and update ones.
CREATE FUNCTION mnemos_vectors_logged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM audit_head WHERE one FOR UPDATE;
  -- PL/pgSQL plans each statement when it first runs, so the branch naming the other event's table is never planned.
  IF TG_OP = 'DELETE' THEN
    INSERT INTO vector_log (memory_row) SELECT memory_row FROM old_rows;
  ELSE
    INSERT INTO vector_log (memory_row) SELECT memory_row FROM new_rows;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER memory_vectors_logged_insert AFTER INSERT ON memory_vectors REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION mnemos_vectors_logged();
CREATE TRIGGER memory_vectors_logged_update AFTER UPDATE ON memory_vectors REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION mnemos_vectors_logged();
CREATE TRIGGER memory_vectors_logged_delete AFTER DELETE ON memory_vectors REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION mnemos_vectors_logged();
CREATE TABLE embedding_models (
  namespace TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  state TEXT,
  texts INTEGER NOT NULL,
  trained_at TEXT NOT NULL,
  PRIMARY KEY (namespace, provider)
);
`,
  },
  {
    version: 8,
    name: 'room on term_df pages for in-place (HOT) updates',
    sql: `
-- Every write batch bumps thousands of document frequencies. With full pages each bump is a
-- new tuple plus a new index entry; half-empty pages let PostgreSQL update in place (HOT).
ALTER TABLE term_df SET (fillfactor = 50);
`,
  },
  {
    version: 9,
    name: 'memory row log: keeps the in-process copy of the full-text index in step',
    sql: `
-- Row numbers only, never text: which memory rows came or went (a row's text never changes in
-- place). Not pruned: one small row per memory written or forgotten. Ordered like vector_log:
-- the audit chain head lock, which every writer holds already, is taken before drawing a seq.
CREATE TABLE memory_log (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, memory_row BIGINT NOT NULL);
CREATE FUNCTION mnemos_memories_logged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM audit_head WHERE one FOR UPDATE;
  IF TG_OP = 'DELETE' THEN
    INSERT INTO memory_log (memory_row) SELECT row_no FROM old_rows;
  ELSE
    INSERT INTO memory_log (memory_row) SELECT row_no FROM new_rows;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER memories_logged_insert AFTER INSERT ON memories REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION mnemos_memories_logged();
CREATE TRIGGER memories_logged_delete AFTER DELETE ON memories REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION mnemos_memories_logged();
`,
  },
  {
    version: 10,
    name: 'ledger version: a counter every change to the ledger moves',
    sql: `
-- Searches keep the facts a caller sees in process and list them again only when this moved:
-- listing thousands of facts for every search cost more than the rest of the search.
CREATE TABLE ledger_version (one BOOLEAN PRIMARY KEY CHECK (one), version BIGINT NOT NULL);
INSERT INTO ledger_version (one, version) VALUES (true, 0);
CREATE FUNCTION mnemos_ledger_versioned() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ledger_version SET version = version + 1 WHERE one;
  RETURN NULL;
END $$;
CREATE TRIGGER ledger_facts_versioned AFTER INSERT OR UPDATE OR DELETE ON ledger_facts FOR EACH STATEMENT EXECUTE FUNCTION mnemos_ledger_versioned();
`,
  },
  {
    version: 11,
    name: 'time orders with their id tie-break in the index',
    sql: `
-- As SQLite migration 10: an import gives a whole file one recorded_at, and with time alone in the
-- index an ordered list sorted every memory of the tie (an incremental sort of one huge group).
CREATE INDEX IF NOT EXISTS memories_recorded_id ON memories(namespace, recorded_at, id);
CREATE INDEX IF NOT EXISTS memories_valid_id ON memories(namespace, valid_from, id);
DROP INDEX IF EXISTS memories_recorded;
DROP INDEX IF EXISTS memories_valid;
`,
  },
  {
    version: 12,
    name: 'current memories by source key, whoever owns them; the memories of a file in key order',
    sql: `
-- As SQLite migration 11: memory_get {path} finds a file's asked lines by their keys among every
-- memory the caller sees, where it had walked all the file's memories.
-- Ending in id, it also orders the walk over one file's memories, as there.
CREATE INDEX IF NOT EXISTS memories_source_key ON memories(namespace, source_key, id) WHERE source_key IS NOT NULL AND superseded_at IS NULL;
`,
  },
  {
    version: 13,
    name: 'what was forgotten from which source: digests of the source keys and the texts they held',
    sql: `
-- As SQLite migration 12: a forgotten chunk, turn or key stays forgotten when its source is read again.
CREATE TABLE tombstone_sources (
  namespace TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  source_digest TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  lineage_id TEXT NOT NULL,
  PRIMARY KEY (namespace, owner_id, source_digest, content_hash, lineage_id)
);
CREATE INDEX tombstones_namespace ON tombstones(namespace);
`,
  },
  {
    version: 14,
    name: 'the salience order with its id tie-break in the episodes index',
    sql: `
-- As SQLite migration 13: the salience order ends in id, so offset pages over a tie (an imported
-- file) neither repeat nor skip memories; ending in id, the index still orders an episode read whole.
CREATE INDEX IF NOT EXISTS memories_episodes_id ON memories(namespace, type, salience, valid_from, id);
DROP INDEX IF EXISTS memories_episodes;
`,
  },
  {
    version: 15,
    name: 'full-text terms again for texts in scripts without spaces (now character pairs) and with Turkish İ',
    sql: '',
    run: (c, analyze, progress) => reanalyzeTextsPg(c, analyze, analyzedDifferentlyThanV1, progress),
  },
  {
    version: 16,
    name: "the store's identity: a random id made once, naming the files kept beside the store",
    sql: `
-- The journal and safety-event logs are files in ./.mnemos, named by this id (store-identity.ts).
-- Named by the URL, localhost and 127.0.0.1 were two stores, and a search_path set on the role
-- was not seen. In the schema the tables are in, so each schema has its own.
CREATE TABLE IF NOT EXISTS mnemos_store_identity (
  one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
  id UUID NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
`,
    run: (c) => ensureStoreIdentity(c),
  },
  {
    version: 17,
    name: 'current memories by salience: the salience list of every type without sorting them all',
    sql: `
-- As SQLite migration 16: salience_desc with no type filter sorted every visible memory of the
-- namespace for each page. Current versions only (the default read); scanned backwards for DESC.
CREATE INDEX IF NOT EXISTS memories_salience_current ON memories(namespace, salience, valid_from, id) WHERE superseded_at IS NULL;
`,
  },
  {
    version: 18,
    name: 'graph name keys again: marks are kept outside Latin and Greek (Thai, Devanagari, Cyrillic ...)',
    sql: '',
    run: (c) => rekeyGraphNamesPg(c),
  },
  {
    version: 19,
    name: 'the extraction rules version each graph-indexed memory was indexed under',
    sql: `
-- As SQLite migration 18: memories indexed under older rules are stale (EXTRACTION_RULES_VERSION) and are
-- indexed again; rows already here predate versions (0). A constant default adds the column without a rewrite.
ALTER TABLE graph_indexed ADD COLUMN IF NOT EXISTS rules_version INTEGER NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS graph_indexed_rules ON graph_indexed(rules_version, memory_id);
`,
  },
  {
    version: 20,
    name: 'graph relations by the relation that closed them',
    sql: `
-- As SQLite migration 19: removing a relation looks up the ones it had closed (SPLICE_SUPERSEDED_SQL), a scan of
-- every relation per relation removed without this.
CREATE INDEX IF NOT EXISTS graph_relations_superseded ON graph_relations(superseded_by) WHERE superseded_by IS NOT NULL;
`,
  },
];

export const PG_LATEST_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;

/**
 * The schema version the store's own table records, or null when there is none yet. The table is named with its
 * schema: unqualified, a schema not created yet would fall through the search path to another store's table.
 */
async function committedVersion(client: pg.PoolClient, schema: string | null): Promise<number | null> {
  const table = schema ? `${quoteSchema(schema)}.mnemos_schema` : 'mnemos_schema';
  try {
    const r = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${table}`);
    return r.rows[0]?.v ?? null;
  } catch (err) {
    // undefined_table, invalid_schema_name: a new store. Outside a transaction, the failed read leaves the session usable.
    const code = (err as { code?: string }).code;
    if (code === '42P01' || code === '3F000') return null;
    throw err;
  }
}

/** Applies pending migrations in one transaction; `onProgress` hears the long ones (ports/migration-progress.ts). Returns the schema version. */
export async function migratePg(client: pg.PoolClient, schema: string | null, analyze: (text: string) => string[], onProgress?: MigrationProgressListener): Promise<number> {
  // An up-to-date store takes no lock. The migration lock is one for the whole database, so every open waited
  // behind any other schema's migration there (another store's first open), and a session with a short
  // statement_timeout failed on it. Migrations commit whole, so the version read here is a committed one;
  // any other answer (older, newer, no table yet) takes the locked path below, which decides.
  if ((await committedVersion(client, schema)) === PG_LATEST_SCHEMA_VERSION) return PG_LATEST_SCHEMA_VERSION;
  // A migration waits as long as it must (another process's migration can take minutes on a large
  // table): the session's lock wait, meant for ordinary statements, is lifted for this transaction.
  await client.query('BEGIN; SET LOCAL lock_timeout = 0');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteSchema(schema)}`);
    await client.query('CREATE TABLE IF NOT EXISTS mnemos_schema (version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    const r = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM mnemos_schema');
    let current = r.rows[0]?.v ?? 0;
    refuseNewerSchema(current, PG_LATEST_SCHEMA_VERSION, 'PostgreSQL');
    for (const m of PG_MIGRATIONS) {
      if (m.version <= current) continue;
      if (m.sql) await client.query(m.sql);
      if (m.run) await m.run(client, analyze, onProgress && ((done, total) => onProgress({ migration: m.version, name: m.name, done, total })));
      await client.query('INSERT INTO mnemos_schema (version, name) VALUES ($1, $2)', [m.version, m.name]);
      current = m.version;
    }
    await client.query('COMMIT');
    return current;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}
