// Snapshots and log pruning in cluster mode, with in-process replicas over a real PostgreSQL server: a replica opening
// a namespace restores its stored snapshot and replays only the log after it; the log a snapshot holds and every live
// replica applied is pruned; a replica away meanwhile catches up from the snapshot; a damaged or missing snapshot falls
// back to the rows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { chunkMarkdown } from '../../src/ingest/chunk-markdown.js';
import { contentHash } from '../../src/store/content-hash.js';
import { KnowledgeStore } from '../../src/store/knowledge-store.js';
import { ClusterLayout } from '../../src/store/postgres/cluster-layout.js';
import { PostgresStorage } from '../../src/store/postgres/postgres-storage.js';
import type { DocumentDraft } from '../../src/store/stored-document.js';
import { markerDocument, markerWord } from '../support/durability-documents.js';
import { startTestPostgres, type TestPostgres } from '../support/embedded-postgres.js';
import { embedText } from '../support/provider-double.js';
import { sanitizeNamespace } from '../../src/store/namespace-name.js';

const namespace = 'snapshots';
const dimensions = 8;

const drafts = (from: number, count: number): DocumentDraft[] =>
  Array.from({ length: count }, (_, offset) => {
    const body = markerDocument(markerWord(5, from + offset), 2);
    return {
      title: `Runbook ${from + offset}`,
      origin: `runbooks/${from + offset}.md`,
      body,
      hash: contentHash(body),
      embeddingModel: 'test-model',
      chunks: chunkMarkdown(body).map((chunk) => ({ ...chunk, embedding: embedText(chunk.text, dimensions) })),
    };
  });

/** Polls `condition` (async) until it holds; throws naming `what` after `timeoutMs`. */
async function eventually(condition: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('cluster mode: stored snapshots and log pruning', () => {
  let postgres: TestPostgres;
  let databaseUrl: string;
  let database: pg.Pool;
  const opened: KnowledgeStore[] = [];
  const warnings: string[] = [];

  /** A replica in this process; the first one started takes the background work (snapshots, pruning). */
  const startReplica = async (): Promise<KnowledgeStore> => {
    const warn = (message: string) => warnings.push(message);
    const store = new KnowledgeStore({
      layout: new ClusterLayout({
        databaseUrl,
        embeddingModel: null,
        warn,
        pollIntervalMs: 100,
        snapshotIntervalMs: 200,
        replicaTimeoutMs: 1_000,
      }),
      warn,
    });
    await store.initialize();
    opened.push(store);
    await eventually(async () => store.ready, 'the replica to be ready');
    return store;
  };
  const closeReplica = async (store: KnowledgeStore) => {
    opened.splice(opened.indexOf(store), 1);
    await store.close();
  };
  const count = async (sql: string) => Number((await database.query<{ count: string }>(sql)).rows[0]?.count);
  const snapshotSeq = async () => count('SELECT coalesce(max(seq), 0) AS count FROM knowledge_snapshots');
  const lastSeq = async () => count(`SELECT last_seq AS count FROM knowledge_namespaces WHERE name = '${namespace}'`);
  const logRows = async () => count('SELECT count(*) AS count FROM knowledge_log');
  const titles = async (store: KnowledgeStore) =>
    (await store.namespace(sanitizeNamespace(namespace))).documents
      .map((document) => document.title)
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const expectedTitles = (count: number) => Array.from({ length: count }, (_, index) => `Runbook ${index}`);

  before(async () => {
    postgres = await startTestPostgres();
    databaseUrl = await postgres.createDatabase('snapshot_test');
    database = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  });

  after(async () => {
    for (const store of [...opened]) await store.close();
    await database?.end();
    await postgres?.stop();
  });

  it('a replica opening a namespace loads its stored snapshot, replays only the log after it, then sees later writes', async () => {
    const owner = await startReplica();
    const writer = await owner.namespace(sanitizeNamespace(namespace));
    for (let batch = 0; batch < 4; batch++) await writer.commitDocuments(drafts(batch * 5, 5));
    await eventually(async () => (await snapshotSeq()) === (await lastSeq()), 'a snapshot of the last commit');
    // Committed after the snapshot: only in the log.
    await writer.commitDocuments(drafts(20, 5));
    // The rows are tampered with: a replica that read them would find no marker in any chunk.
    await database.query("UPDATE knowledge_chunks SET text = 'tampered'");
    const late = await startReplica();
    const namespaceOnLate = await late.namespace(sanitizeNamespace(namespace));
    assert.deepEqual(await titles(late), expectedTitles(25));
    assert.equal(namespaceOnLate.vectorCount, writer.vectorCount);
    assert.ok(namespaceOnLate.searchLexical(markerWord(5, 3), 5).length > 0, 'a document from the snapshot');
    assert.ok(namespaceOnLate.searchLexical(markerWord(5, 22), 5).length > 0, 'a document from the log after the snapshot');
    await writer.commitDocuments(drafts(25, 1));
    await eventually(async () => (await titles(late)).length === 26, 'the later write on the late replica');
    await closeReplica(late);
  });

  it('prunes the log a snapshot holds once every live replica applied it; a replica away meanwhile catches up from the snapshot', async () => {
    const owner = opened[0] as KnowledgeStore;
    const writer = await owner.namespace(sanitizeNamespace(namespace));
    const away = await startReplica();
    assert.deepEqual(await titles(away), expectedTitles(26));
    await closeReplica(away);
    for (let batch = 0; batch < 3; batch++) await writer.commitDocuments(drafts(26 + batch * 4, 4));
    await eventually(
      async () => (await snapshotSeq()) === (await lastSeq()) && (await logRows()) === 0,
      'every log entry pruned once the snapshot holds them',
    );
    const back = await startReplica();
    assert.deepEqual(await titles(back), expectedTitles(38));
    await writer.commitDocuments(drafts(38, 2));
    await eventually(async () => (await titles(back)).length === 40, 'a write after the return');
    await closeReplica(back);
  });

  it('a replica that was silent while the log was pruned past it loads the snapshot again', async () => {
    const owner = opened[0] as KnowledgeStore;
    const writer = await owner.namespace(sanitizeNamespace(namespace));
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    let outrun = false;
    // A namespace's storage alone: it reports no position and hears no notifications, as a replica cut off would.
    const storage = new PostgresStorage({
      name: sanitizeNamespace(namespace),
      pool,
      embeddingModel: null,
      onRemoved: () => undefined,
      onOutrun: () => (outrun = true),
      warn: () => undefined,
    });
    try {
      const index = await storage.load();
      assert.equal(index.documentCount, 40);
      await writer.commitDocuments(drafts(40, 2));
      await eventually(async () => (await snapshotSeq()) === (await lastSeq()) && (await logRows()) === 0, 'the log pruned past it');
      await assert.rejects(storage.refresh(index), { code: 'storage_unavailable' });
      assert.equal(outrun, true);
      const reloaded = await storage.load();
      assert.equal(reloaded.documentCount, 42);
    } finally {
      await pool.end();
    }
  });

  it('a damaged or missing snapshot is passed over: the namespace loads from its rows, and gets a sound snapshot', async () => {
    await database.query("UPDATE knowledge_chunks SET text = 'restored ' || id");
    await closeReplica(opened[0] as KnowledgeStore);
    // Bytes in the middle of the first part changed: a checksum no longer matches.
    await database.query("UPDATE knowledge_snapshot_parts SET bytes = overlay(bytes PLACING '\\xdeadbeef'::bytea FROM 200) WHERE part = 0");
    const writtenAt = async () =>
      (await database.query<{ at: string }>('SELECT written_at::text AS at FROM knowledge_snapshots')).rows[0]?.at;
    const damagedAt = await writtenAt();
    warnings.length = 0;
    const damaged = await startReplica();
    assert.deepEqual(await titles(damaged), expectedTitles(42));
    assert.ok(
      warnings.some((warning) => /snapshot of namespace snapshots is unusable/.test(warning)),
      warnings.join('\n'),
    );
    // The only replica, so it owns the background work: it replaces the damaged snapshot though nothing changed since.
    await eventually(async () => (await writtenAt()) !== damagedAt, 'a new snapshot');
    await closeReplica(damaged);
    warnings.length = 0;
    const sound = await startReplica();
    assert.deepEqual(await titles(sound), expectedTitles(42));
    assert.deepEqual(warnings, []);
    await closeReplica(sound);
    await database.query('DELETE FROM knowledge_snapshot_parts WHERE part = 0');
    const missing = await startReplica();
    assert.deepEqual(await titles(missing), expectedTitles(42));
    assert.ok(
      warnings.some((warning) => /part 0 of \d+ is missing/.test(warning)),
      warnings.join('\n'),
    );
  });
});
