// SIGTERM to the real process (the compiled main.ts) while an agent answer is streaming and an ingest is in flight: the stream
// ends with a `shutting_down` error event and [DONE] (its provider call aborted), the ingest is answered `saved` with its
// document on disk, a later request is refused, and the process exits 0 well within the deadline; past the deadline it
// exits 1 with a log line.
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { shutdownDeadlineMs } from '../../src/lifecycle/graceful-shutdown.js';
import { startChildService, type ChildService } from '../support/child-service.js';
import { startProviderDouble, type ProviderDouble } from '../support/provider-double.js';
import { makeStorageRoot, testApiKey } from '../support/service.js';
import { parseSseData } from '../support/sse.js';
import { until } from '../support/until.js';
import { readStream } from './stream-reader.js';

type Event = { type?: string; code?: string; [key: string]: unknown };

/** Long enough (hundreds of 4-character deltas, 20 ms apart) to still be streaming when SIGTERM comes. */
const longAnswer = 'Tokens rotate every ninety days [1]. '.repeat(100);

describe('graceful shutdown of the real process on SIGTERM', () => {
  let provider: ProviderDouble;
  let storageRoot: string;
  let child: ChildService;

  before(async () => {
    // Every embedding call takes a while, so an ingest is reliably still in flight when the signal comes.
    provider = await startProviderDouble({ embeddingDelayMs: 1_500 });
    storageRoot = await makeStorageRoot();
    child = await startChildService({ storageRoot, providerUrl: provider.baseUrl });
    const seeded = await child.post('/tools/ingest', {
      namespace: 'ops',
      sources: [{ type: 'text', title: 'Token rotation', value: '# Token rotation\n\nTokens rotate every ninety days.' }],
    });
    assert.equal(seeded.status, 200, await seeded.text());
  });

  after(async () => {
    await child?.kill();
    await provider?.close();
    await rm(storageRoot, { recursive: true, force: true });
  });

  it('ends the stream with a final event, finishes the ingest, refuses new requests and exits 0', { timeout: 60_000 }, async () => {
    provider.queueChat({ text: longAnswer, delayMs: 20 });
    const agentResponse = await child.post('/agent', {
      messages: [{ role: 'user', content: '@knowledge how often do tokens rotate?' }],
      tool_params: { namespace: 'ops' },
    });
    assert.equal(agentResponse.status, 200);
    const agentStream = readStream(agentResponse);
    await agentStream.waitFor((text) => text.includes('"type":"text_message"'));

    const embeddingCalls = provider.embeddingRequests().length;
    const ingestResponse = child.post('/tools/ingest', {
      namespace: 'ops',
      sources: [
        { type: 'text', title: 'Late arrival', value: '# Late arrival\n\nThis document was in flight when the service was told to stop.' },
      ],
    });
    await until(() => provider.embeddingRequests().length > embeddingCalls, 'the ingest to reach the embedding provider');

    const signalledAt = Date.now();
    const exited = child.stop();
    await until(() => child.output.some((line) => line.includes('shutting down: refusing new requests')), 'the service to start closing');

    // The listener is closed by now: a new connection is refused. A request that still reaches the app (on a
    // connection opened before) gets 503 shutting_down. Either way nothing new is started.
    const late = await fetch(`${child.baseUrl}/health`).then(
      async (response) => ({ status: response.status, body: await response.text() }),
      (error: unknown) => ({ refused: error }),
    );
    if ('status' in late) {
      assert.equal(late.status, 503, late.body);
      assert.equal((JSON.parse(late.body) as { error: { code: string } }).error.code, 'shutting_down');
    }

    const events = parseSseData(await agentStream.done) as (Event | string)[];
    assert.ok(
      events.some((event) => typeof event === 'object' && event.type === 'text_message'),
      'the answer had started',
    );
    assert.equal(events.at(-1), '[DONE]');
    const final = events.at(-2) as Event;
    assert.equal(final.type, 'error');
    assert.equal(final.code, 'shutting_down');
    await provider.waitForAbortedChatStreams(1);

    const ingested = await ingestResponse;
    assert.equal(ingested.status, 200);
    const body = (await ingested.json()) as { documents: { path: string; status: string }[]; errors: unknown[] };
    assert.deepEqual(body.errors, []);
    assert.equal(body.documents[0]?.status, 'saved');
    assert.match(await readFile(body.documents[0]?.path ?? '', 'utf8'), /in flight when the service was told to stop/);

    assert.equal(await exited, 0);
    assert.ok(Date.now() - signalledAt < shutdownDeadlineMs, `exited after ${Date.now() - signalledAt} ms`);
    assert.ok(child.output.some((line) => line.includes('shutdown complete')));
    for (const line of child.output) {
      assert.doesNotThrow(() => JSON.parse(line), `not a JSON log line: ${line}`);
      assert.ok(!line.includes(testApiKey), 'no log line holds the provider key');
    }
  });
});

describe('the shutdown deadline', () => {
  let provider: ProviderDouble;
  let storageRoot: string;
  let child: ChildService;

  before(async () => {
    // A search waiting on the provider is not cut short by shutdown, so this one outlasts the deadline.
    provider = await startProviderDouble({ embeddingDelayMs: shutdownDeadlineMs + 5_000 });
    storageRoot = await makeStorageRoot();
    // Placed by hand, so it is not embedded yet: an embedding search embeds it first, waiting on the provider.
    await mkdir(join(storageRoot, 'ops'));
    await writeFile(join(storageRoot, 'ops', 'rotation.md'), '# Rotation\n\nTokens rotate every ninety days.\n');
    child = await startChildService({ storageRoot, providerUrl: provider.baseUrl });
  });

  after(async () => {
    await child?.kill();
    await provider?.close();
    await rm(storageRoot, { recursive: true, force: true });
  });

  it('exits 1 with a log line when closing has not finished by then', { timeout: 60_000 }, async () => {
    const search = child.post('/tools/search', { namespace: 'ops', query: 'rotation', mode: 'embedding' }).catch((error: unknown) => error);
    await until(() => provider.embeddingRequests().length > 0, 'the search to reach the embedding provider');
    const signalledAt = Date.now();
    assert.equal(await child.stop(), 1);
    const elapsed = Date.now() - signalledAt;
    assert.ok(elapsed >= shutdownDeadlineMs - 100 && elapsed < shutdownDeadlineMs + 3_000, `exited after ${elapsed} ms`);
    assert.ok(child.output.some((line) => line.includes('shutdown did not finish within 10 s; exiting') && line.includes('"level":50')));
    await search;
  });
});
