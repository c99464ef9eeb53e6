// The tables cluster mode keeps in PostgreSQL: the state of every namespace (documents with their Markdown, chunks,
// vectors) and the ordered log of the changes that led to it, which replicas replay to keep their indexes current;
// snapshots of the namespaces' indexes and how far each replica has applied the log (which bound its pruning); the
// question log; and the registered sources.
import type { Pool, PoolClient } from 'pg';

/** Channel on which a commit names its namespace, to wake the other replicas up. */
export const changeChannel = 'knowledge_agent_changes';

/** First key of the two-key advisory locks; the second is the namespace name's hash (see namespaceLockSql). */
export const namespaceLockClass = 7_315_001;
/** Held (session level) by the one replica that runs the work that must happen once. */
export const backgroundWorkerLock = [7_315_002, 0] as const;
/** First key of the two-key lock (second: the name's hash) taken to write a namespace's snapshot or prune its log. */
export const snapshotLockClass = 7_315_004;
/** Taken while the schema is created, so replicas starting at once do not race on it. */
const schemaLock = [7_315_003, 0] as const;

/** Serializes writers of one namespace across replicas until the transaction ends. */
export const namespaceLockSql = `SELECT pg_advisory_xact_lock(${namespaceLockClass}, hashtext($1))`;

const schema = `
CREATE TABLE IF NOT EXISTS knowledge_namespaces (
  id bigserial PRIMARY KEY,
  name text NOT NULL UNIQUE,
  embedding_model text,
  embedding_dimensions integer,
  -- The log entry of this namespace's last commit: a replica that applied it is up to date.
  last_seq bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS knowledge_documents (
  namespace_id bigint NOT NULL REFERENCES knowledge_namespaces (id) ON DELETE CASCADE,
  file text NOT NULL,
  title text NOT NULL,
  source text NOT NULL,
  hash text NOT NULL,
  ingested_at text NOT NULL,
  file_size integer NOT NULL,
  -- The whole Markdown file as the folder layout would hold it: front matter, then the body.
  markdown text NOT NULL,
  PRIMARY KEY (namespace_id, file)
);
CREATE TABLE IF NOT EXISTS knowledge_chunks (
  namespace_id bigint NOT NULL,
  id text NOT NULL,
  file text NOT NULL,
  ordinal integer NOT NULL,
  heading_path jsonb NOT NULL,
  text text NOT NULL,
  -- float32 little-endian unit vector of the namespace's embedding model; null until embedded.
  vector bytea,
  PRIMARY KEY (namespace_id, id),
  FOREIGN KEY (namespace_id, file) REFERENCES knowledge_documents (namespace_id, file) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS knowledge_chunks_by_file ON knowledge_chunks (namespace_id, file, ordinal);
CREATE TABLE IF NOT EXISTS knowledge_log (
  seq bigserial PRIMARY KEY,
  namespace_id bigint NOT NULL REFERENCES knowledge_namespaces (id) ON DELETE CASCADE,
  -- The IndexOps of one commit (see index-op-codec.ts).
  ops text NOT NULL,
  committed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS knowledge_log_by_namespace ON knowledge_log (namespace_id, seq);
-- The latest snapshot of a namespace's index (../index-snapshot.ts), as of log entry seq: a replica that opens the
-- namespace restores it and replays only the log after it. Its bytes, gzip-compressed, are in knowledge_snapshot_parts.
CREATE TABLE IF NOT EXISTS knowledge_snapshots (
  namespace_id bigint PRIMARY KEY REFERENCES knowledge_namespaces (id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  bytes bigint NOT NULL,
  parts integer NOT NULL,
  written_at timestamptz NOT NULL DEFAULT now(),
  -- The namespace's log entries up to this one are deleted: a replica that applied less must load the snapshot again.
  pruned_seq bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS knowledge_snapshot_parts (
  namespace_id bigint NOT NULL REFERENCES knowledge_namespaces (id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  part integer NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (namespace_id, seq, part)
);
-- Compressed already (gzip): stored as they are, not compressed again.
ALTER TABLE knowledge_snapshot_parts ALTER COLUMN bytes SET STORAGE EXTERNAL;
-- How far each replica has applied each namespace's log, reported every poll: pruning never passes a replica seen lately.
CREATE TABLE IF NOT EXISTS knowledge_replicas (
  replica text NOT NULL,
  namespace_id bigint NOT NULL REFERENCES knowledge_namespaces (id) ON DELETE CASCADE,
  applied_seq bigint NOT NULL,
  seen_at timestamptz NOT NULL,
  PRIMARY KEY (replica, namespace_id)
);
-- The question log: every replica's questions and the feedback on their answers (see ../question-log.ts).
CREATE TABLE IF NOT EXISTS knowledge_questions (
  id bigserial PRIMARY KEY,
  namespace_id bigint NOT NULL REFERENCES knowledge_namespaces (id) ON DELETE CASCADE,
  run_id text NOT NULL,
  recorded_at timestamptz NOT NULL,
  record jsonb NOT NULL
);
CREATE INDEX IF NOT EXISTS knowledge_questions_by_namespace ON knowledge_questions (namespace_id, recorded_at);
CREATE INDEX IF NOT EXISTS knowledge_questions_by_run ON knowledge_questions (run_id);
-- The registered sources and their refresh state (see ../source-registry.ts), leased by the replica refreshing one.
CREATE TABLE IF NOT EXISTS knowledge_sources (
  namespace_id bigint NOT NULL REFERENCES knowledge_namespaces (id) ON DELETE CASCADE,
  id text NOT NULL,
  -- The SourceDefinition as its owner set it (kind, url, bounds, schedule, webhook secret).
  definition jsonb NOT NULL,
  last_refresh jsonb,
  next_run_at timestamptz,
  created_at timestamptz NOT NULL,
  state jsonb NOT NULL DEFAULT '{"pages":{}}',
  lease_owner text,
  lease_until timestamptz,
  PRIMARY KEY (namespace_id, id)
);
-- Only scheduled sources are looked at by the scan for due ones.
CREATE INDEX IF NOT EXISTS knowledge_sources_due ON knowledge_sources (next_run_at) WHERE next_run_at IS NOT NULL;
`;

export async function createSchema(pool: Pool): Promise<void> {
  const client: PoolClient = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [...schemaLock]);
    await client.query(schema);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
