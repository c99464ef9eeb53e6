// The tables cluster mode keeps in PostgreSQL: the state of every namespace (documents with their Markdown, chunks,
// vectors) and the ordered log of the changes that led to it, which replicas replay to keep their indexes current;
// the question log; and the registered sources.
import type { Pool, PoolClient } from 'pg';

/** Channel on which a commit names its namespace, to wake the other replicas up. */
export const changeChannel = 'knowledge_agent_changes';

/** First key of the two-key advisory locks; the second is the namespace name's hash (see namespaceLockSql). */
export const namespaceLockClass = 7_315_001;
/** Held (session level) by the one replica that runs the work that must happen once. */
export const backgroundWorkerLock = [7_315_002, 0] as const;
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
