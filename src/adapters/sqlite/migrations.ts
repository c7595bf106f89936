import { refuseNewerSchema } from '../newer-schema.ts';
import type Database from 'better-sqlite3';
import { LIFECYCLE_SCHEMA_SQL } from './lifecycle-schema.ts';
import { reanalyzeTexts } from './reanalyze-texts.ts';
import { keepMarksInTerms } from './fts-marks.ts';
import { rekeyGraphNames } from './graph-rekey.ts';
import { analyzedDifferentlyThanV1 } from '../../retrieval/text/analyze.ts';
import type { MigrationProgressListener, TextProgress } from '../../ports/migration-progress.ts';

/** The text analysis the store's writer uses, which a migration that rewrites full-text terms must use too. */
export type Analyze = (text: string) => string[];

/**
 * Numbered migrations. Each runs once, in order, inside an IMMEDIATE
 * transaction of its own together with its version bump, so two processes
 * opening a new file at the same time cannot both apply it. Never edit a released
 * migration: add the next number.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Work SQL cannot do (analysing text), after `sql`, in the same transaction; long work reports through `progress`. */
  run?: (db: Database.Database, analyze: Analyze, progress: TextProgress) => void;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'memories, full-text index, audit log, tombstones, pending changes',
    sql: `
CREATE TABLE memories (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  lineage_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  text TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  type TEXT NOT NULL,
  importance REAL NOT NULL,
  access_count INTEGER NOT NULL DEFAULT 0,
  last_accessed_at INTEGER,
  emotional_valence REAL NOT NULL DEFAULT 0,
  salience REAL NOT NULL DEFAULT 0,
  lifecycle TEXT NOT NULL,
  valid_from INTEGER NOT NULL,
  valid_to INTEGER,
  recorded_at INTEGER NOT NULL,
  superseded_at INTEGER,
  superseded_by TEXT,
  origin TEXT NOT NULL,
  source TEXT NOT NULL,
  source_key TEXT,
  namespace TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  agent_id TEXT,
  session_id TEXT,
  visibility TEXT NOT NULL,
  labels TEXT NOT NULL,
  read_only INTEGER NOT NULL DEFAULT 0,
  tags TEXT NOT NULL,
  metadata TEXT NOT NULL,
  expires_at INTEGER,
  doc_len INTEGER NOT NULL DEFAULT 0
);
-- Source keys are idempotency keys of one writer: the same key from another principal is another memory.
CREATE UNIQUE INDEX memories_current_source ON memories(namespace, owner_id, source_key) WHERE source_key IS NOT NULL AND superseded_at IS NULL;
CREATE INDEX memories_lineage ON memories(lineage_id, version);
CREATE INDEX memories_recorded ON memories(namespace, recorded_at);
CREATE INDEX memories_valid ON memories(namespace, valid_from);
CREATE INDEX memories_session ON memories(namespace, session_id) WHERE session_id IS NOT NULL;
CREATE INDEX memories_episodes ON memories(namespace, type, salience, valid_from);

-- Contentless: the index keeps postings only, never a second copy of the text.
CREATE VIRTUAL TABLE memories_fts USING fts5(terms, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE memories_fts_vocab USING fts5vocab(memories_fts, 'row');

CREATE TABLE audit_log (
  seq INTEGER PRIMARY KEY,
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
-- Defence in depth; the hash chain is what detects tampering that drops these.
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;

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
    version: 5,
    name: 'memory lifecycle: knowledge graph, canonical ledger, jobs with leases, expiry ledger',
    sql: LIFECYCLE_SCHEMA_SQL,
  },
  {
    version: 6,
    name: 'vectors beside memories, their change log, and learned embedding models',
    sql: `
CREATE TABLE memory_vectors (
  memory_rowid INTEGER PRIMARY KEY REFERENCES memories(rowid) ON DELETE CASCADE,
  model TEXT NOT NULL,
  vector BLOB NOT NULL
);
CREATE INDEX memory_vectors_model ON memory_vectors(model);
-- Rowids only: lets every process keep its in-memory copy of the vectors in step.
CREATE TABLE vector_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, memory_rowid INTEGER NOT NULL);
CREATE TRIGGER memory_vectors_logged_insert AFTER INSERT ON memory_vectors BEGIN INSERT INTO vector_log (memory_rowid) VALUES (new.memory_rowid); END;
CREATE TRIGGER memory_vectors_logged_update AFTER UPDATE ON memory_vectors BEGIN INSERT INTO vector_log (memory_rowid) VALUES (new.memory_rowid); END;
CREATE TRIGGER memory_vectors_logged_delete AFTER DELETE ON memory_vectors BEGIN INSERT INTO vector_log (memory_rowid) VALUES (old.memory_rowid); END;
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
    version: 7,
    name: 'memory row log: keeps the in-process copy of the full-text index in step',
    sql: `
-- Rowids only, never text: which memory rows came or went (a row's text never changes in place).
-- Not pruned: one small row per memory written or forgotten. Inserts are logged by the writer, one
-- statement per batch (write.ts): a trigger on every insert made each one keep a statement journal.
CREATE TABLE memory_log (seq INTEGER PRIMARY KEY, memory_rowid INTEGER NOT NULL);
CREATE TRIGGER memories_logged_text AFTER UPDATE OF text ON memories BEGIN INSERT INTO memory_log (memory_rowid) VALUES (new.rowid); END;
CREATE TRIGGER memories_logged_delete AFTER DELETE ON memories BEGIN INSERT INTO memory_log (memory_rowid) VALUES (old.rowid); END;
`,
  },
  {
    version: 8,
    name: 'one vector per memory and model, as on PostgreSQL',
    sql: `
-- Keyed by the memory alone, a vector of a second model replaced the first: a retrained model's vectors
-- overwrote the current ones while searches still used them. The rowids and vectors are kept as they were.
CREATE TABLE memory_vectors_next (
  memory_rowid INTEGER NOT NULL REFERENCES memories(rowid) ON DELETE CASCADE,
  model TEXT NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (memory_rowid, model)
);
INSERT INTO memory_vectors_next (memory_rowid, model, vector) SELECT memory_rowid, model, vector FROM memory_vectors ORDER BY memory_rowid;
DROP TABLE memory_vectors;
ALTER TABLE memory_vectors_next RENAME TO memory_vectors;
CREATE INDEX memory_vectors_model ON memory_vectors(model);
CREATE TRIGGER memory_vectors_logged_insert AFTER INSERT ON memory_vectors BEGIN INSERT INTO vector_log (memory_rowid) VALUES (new.memory_rowid); END;
CREATE TRIGGER memory_vectors_logged_update AFTER UPDATE ON memory_vectors BEGIN INSERT INTO vector_log (memory_rowid) VALUES (new.memory_rowid); END;
CREATE TRIGGER memory_vectors_logged_delete AFTER DELETE ON memory_vectors BEGIN INSERT INTO vector_log (memory_rowid) VALUES (old.memory_rowid); END;
`,
  },
  {
    version: 9,
    name: 'ledger version: a counter every change to the ledger moves',
    sql: `
-- Searches keep the facts a caller sees in process and list them again only when this moved:
-- listing thousands of facts for every search cost more than the rest of the search.
CREATE TABLE ledger_version (one INTEGER PRIMARY KEY CHECK (one = 1), version INTEGER NOT NULL);
INSERT INTO ledger_version (one, version) VALUES (1, 0);
CREATE TRIGGER ledger_facts_versioned_insert AFTER INSERT ON ledger_facts BEGIN UPDATE ledger_version SET version = version + 1; END;
CREATE TRIGGER ledger_facts_versioned_update AFTER UPDATE ON ledger_facts BEGIN UPDATE ledger_version SET version = version + 1; END;
CREATE TRIGGER ledger_facts_versioned_delete AFTER DELETE ON ledger_facts BEGIN UPDATE ledger_version SET version = version + 1; END;
`,
  },
  {
    version: 10,
    name: 'time orders with their id tie-break in the index',
    sql: `
-- Lists order by time, then id. An import gives every memory of a file the same recorded_at (and,
-- without dates of their own, the same valid_from), so with time alone in the index SQLite sorted
-- the whole tie: listing the newest 5 of a million imported memories sorted a million rows (2 s),
-- and every page of the model's training sample did the same.
CREATE INDEX IF NOT EXISTS memories_recorded_id ON memories(namespace, recorded_at, id);
CREATE INDEX IF NOT EXISTS memories_valid_id ON memories(namespace, valid_from, id);
DROP INDEX IF EXISTS memories_recorded;
DROP INDEX IF EXISTS memories_valid;
`,
  },
  {
    version: 11,
    name: 'current memories by source key, whoever owns them; the memories of a file in key order',
    sql: `
-- memory_get {path} finds the memories of a file's asked lines by their keys (file:<path>#L<n>),
-- among every memory the caller sees, not only its own: without this it walked all the file's
-- memories, 25 s for five lines of a million-line file. Memories without a key are not in it.
-- Ending in id, it also orders the walk over one file's memories (the prefix as a range, then the
-- key and id of the last row seen): filtering the time index by prefix read every memory of the
-- namespace for each file, 0.6 s a file at a million.
CREATE INDEX IF NOT EXISTS memories_source_key ON memories(namespace, source_key, id) WHERE source_key IS NOT NULL AND superseded_at IS NULL;
`,
  },
  {
    version: 12,
    name: 'what was forgotten from which source: digests of the source keys and the texts they held',
    sql: `
-- A re-import of an unchanged file wrote a forgotten chunk back (adapters/sql/forgotten-sources.ts).
-- One row per source key and text of each forgotten version, so an older version's text stays
-- forgotten too. A digest, never the key: a client key may say what the memory said. Tombstones
-- from before have none.
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
    version: 13,
    name: 'the salience order with its id tie-break in the episodes index',
    sql: `
-- The salience order ends in id (adapters: ORDER_SQL): an import gives a whole file one salience and
-- one valid_from, and a tie nothing orders let offset pages repeat some memories and skip others.
-- Ending in id, the index still orders an episode read (a type, by salience) whole; without it SQLite
-- sorted the tail of the order for each page.
CREATE INDEX IF NOT EXISTS memories_episodes_id ON memories(namespace, type, salience, valid_from, id);
DROP INDEX IF EXISTS memories_episodes;
`,
  },
  {
    version: 14,
    name: 'full-text terms again for texts in scripts without spaces (now character pairs) and with Turkish İ',
    sql: '',
    run: (db, analyze, progress) => void reanalyzeTexts(db, analyze, analyzedDifferentlyThanV1, progress),
  },
  {
    version: 15,
    name: 'full-text terms kept whole at combining marks (Thai vowel and tone signs, Devanagari signs)',
    sql: '',
    run: (db, analyze, progress) => void keepMarksInTerms(db, analyze, progress),
  },
  {
    version: 16,
    name: 'current memories by salience: the salience list of every type without sorting them all',
    sql: `
-- A salience_desc list with no type filter could use no index (the episodes index leads with type), so
-- each page sorted every visible memory of the namespace. Current versions only, as the list reads
-- them by default: a read "as known at" a past time is rare and keeps its sort. The read rule is not in
-- the index: a non-owner's rows are filtered as the walk passes them, in order.
CREATE INDEX IF NOT EXISTS memories_salience_current ON memories(namespace, salience, valid_from, id) WHERE superseded_at IS NULL;
`,
  },
  {
    version: 17,
    name: 'graph name keys again: marks are kept outside Latin and Greek (Thai, Devanagari, Cyrillic ...)',
    sql: '',
    run: (db) => rekeyGraphNames(db),
  },
  {
    version: 18,
    name: 'the extraction rules version each graph-indexed memory was indexed under',
    // Memories indexed under older rules keep what those rules found ("Team Alice Smith" across a heading's
    // line break) until they are indexed again; the version says which are stale (EXTRACTION_RULES_VERSION,
    // graph/extract-rules.ts). Rows already here were indexed before versions existed: 0, so all are stale.
    sql: '',
    run: (db) => {
      // SQLite has no ADD COLUMN IF NOT EXISTS: a store whose recorded version was set back (tests do) has it already.
      const columns = db.prepare("SELECT name FROM pragma_table_info('graph_indexed')").pluck().all() as string[];
      if (!columns.includes('rules_version')) db.exec('ALTER TABLE graph_indexed ADD COLUMN rules_version INTEGER NOT NULL DEFAULT 0');
      db.exec('CREATE INDEX IF NOT EXISTS graph_indexed_rules ON graph_indexed(rules_version, memory_id)');
    },
  },
  {
    version: 19,
    name: 'graph relations by the relation that closed them',
    sql: `
-- A relation that goes hands its place in the chain of closures to the one it had closed (SPLICE_SUPERSEDED_SQL,
-- sql/graph-sql.ts), found by superseded_by: without an index, a scan of every relation per relation removed,
-- which made a rebuild of the graph (graph reindex --all, removing each old relation) twice a fresh index.
CREATE INDEX IF NOT EXISTS graph_relations_superseded ON graph_relations(superseded_by) WHERE superseded_by IS NOT NULL;
`,
  },
];

/** Applies pending migrations; `onProgress` hears the long ones (ports/migration-progress.ts). Returns the schema version. */
export function migrate(db: Database.Database, analyze: Analyze, onProgress?: MigrationProgressListener): number {
  // Up to date: a plain read, no write lock. Taking it on every open made any command (an export, a search)
  // wait behind another process's long import before it read anything.
  const found = db.pragma('user_version', { simple: true }) as number;
  refuseNewerSchema(found, LATEST_SCHEMA_VERSION, 'SQLite');
  if (found === LATEST_SCHEMA_VERSION) return found;
  // One transaction per migration, each committed with its version bump: a process killed part-way leaves
  // the store at the last migration it finished, which the next open continues from. Not one transaction
  // for all of them: FTS5 keeps a transaction's index writes in memory until commit, and migration 15's
  // rewrite of the index's declaration (fts-marks.ts) reconnects the table, which then read the writes
  // migration 14 had made in the same transaction as a corrupt index, so a store from before 14 with
  // texts in it could not be opened at all ("constraint failed", "fts5: corruption found").
  let current = found;
  for (const m of [...MIGRATIONS].sort((a, b) => a.version - b.version)) {
    if (m.version <= current) continue;
    const step = db.transaction((): number => {
      // Read again under the write lock: another process opening the store may have applied it meanwhile.
      const now = db.pragma('user_version', { simple: true }) as number;
      if (m.version <= now) return now;
      if (m.sql) db.exec(m.sql);
      m.run?.(db, analyze, (done, total) => onProgress?.({ migration: m.version, name: m.name, done, total }));
      db.pragma(`user_version = ${m.version}`);
      return m.version;
    });
    current = step.immediate();
  }
  return current;
}

export const LATEST_SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));
