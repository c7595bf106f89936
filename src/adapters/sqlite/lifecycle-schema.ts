/**
 * Migration 5 (memory lifecycle, issue 7): knowledge graph, canonical ledger,
 * jobs with leases, and the expiry ledger used by the purge. Scope columns
 * mirror memories so the read rule (adapters/sql/scope-sql.ts) applies as is.
 */
export const LIFECYCLE_SCHEMA_SQL = `
CREATE TABLE graph_entities (
  id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  agent_id TEXT,
  visibility TEXT NOT NULL,
  name TEXT NOT NULL,
  norm TEXT NOT NULL,
  type TEXT NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
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
  valid_from INTEGER NOT NULL,
  valid_to INTEGER,
  recorded_at INTEGER NOT NULL,
  superseded_by TEXT,
  confidence REAL NOT NULL
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
  confidence REAL NOT NULL,
  mentions INTEGER NOT NULL,
  source TEXT NOT NULL,
  status TEXT NOT NULL,
  valid_from INTEGER NOT NULL,
  valid_until INTEGER,
  superseded_by TEXT,
  updated_at INTEGER NOT NULL
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
  created_at INTEGER NOT NULL,
  status TEXT NOT NULL
);

CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  holder TEXT NOT NULL,
  lease_expires_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  phase TEXT,
  state TEXT NOT NULL,
  report TEXT,
  watermark INTEGER
);
-- At most one running job per name and namespace, whatever the process.
CREATE UNIQUE INDEX jobs_one_running ON jobs(namespace, name) WHERE status = 'running';
CREATE INDEX jobs_recent ON jobs(namespace, name, started_at);
CREATE TABLE lifecycle_expired (lineage_id TEXT PRIMARY KEY, namespace TEXT NOT NULL, expired_at INTEGER NOT NULL);
`;
