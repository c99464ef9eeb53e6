// KNOWLEDGE_AGENT_MODEL=extractive with no provider key: the whole pipeline answers over both stream formats and generate.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, startServiceWithProvider, type TestService } from '../support/service.js';
import { parseSseData, variant1Answer } from '../support/sse.js';

describe('extractive answers without a provider', () => {
  let service: TestService;

  before(async () => {
    service = await startService({ apiKey: undefined, environment: { KNOWLEDGE_AGENT_MODEL: 'extractive' } });
    const response = await service.post('/tools/ingest', {
      namespace: 'offline',
      sources: [
        {
          type: 'text',
          title: 'Deployment',
          value: '# Deployment\n\nThe service is deployed with a rolling update. Each rollout waits for health checks to pass.',
        },
        {
          type: 'text',
          title: 'Caching',
          value: '# Caching\n\nResponses are cached for five minutes. The cache is cleared on every deployment.',
        },
      ],
    });
    assert.equal(response.status, 200);
  });

  after(async () => {
    await service.dispose();
  });

  it('streams a quoted, cited answer in the Variant 1 format', async () => {
    const response = await service.post('/agent', {
      messages: [{ role: 'user', content: '@knowledge how long are responses cached?' }],
      tool_params: { namespace: 'offline' },
    });
    const events = parseSseData(await response.text());
    const text = variant1Answer(events);
    assert.match(text, /Responses are cached for five minutes \[\d\]/);
    assert.equal(text.split('\n').at(-1), 'Sources: Caching');
    assert.equal(events.at(-1), '[DONE]');
  });

  it('answers over AG-UI and generate, citing file names', async () => {
    const agUi = parseSseData(
      await (
        await service.post('/agent', {
          threadId: 't',
          runId: 'r',
          messages: [{ id: 'm', role: 'user', content: 'how is the service deployed?' }],
          forwardedProps: { namespace: 'offline' },
        })
      ).text(),
    ) as { type: string; delta?: string }[];
    const text = agUi
      .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
      .map((event) => event.delta)
      .join('');
    assert.match(text, /rolling update \[\d\]/);
    assert.equal(text.split('\n').at(-1), 'Sources: deployment.md');
    assert.equal(agUi.at(-1)?.type, 'RUN_FINISHED');

    const generate = (await (
      await service.post('/api/agents/knowledge/generate', {
        messages: [{ role: 'user', content: 'when is the cache cleared?' }],
        toolParams: { namespace: 'offline' },
      })
    ).json()) as { text: string; sources: string[] };
    assert.match(generate.text, /cleared on every deployment \[\d\]/);
    assert.deepEqual(generate.sources, ['caching.md']);
  });

  it('reads MkDocs autorefs as their text in answers and previews, and leaves code alone', async () => {
    const ingested = await service.post('/tools/ingest', {
      namespace: 'autorefs',
      sources: [
        {
          type: 'text',
          title: 'Validators',
          value:
            '# Validators\n\nA [`field_validator`][pydantic.functional_validators.field_validator] runs after parsing, ' +
            'and [`model_validator`][] checks the whole model.\n\n```py\nrows[0][row.key] = 1\n```\n',
        },
      ],
    });
    assert.equal(ingested.status, 200);
    const search = (await (
      await service.post('/api/tools/searchDocs', { namespace: 'autorefs', query: 'field_validator after parsing', mode: 'lexical' })
    ).json()) as { results: { excerpt: string }[] };
    assert.equal(
      search.results[0]?.excerpt,
      '# Validators A `field_validator` runs after parsing, and `model_validator` checks the whole model. ```py rows[0][row.key] = 1 ```',
    );
    const generate = (await (
      await service.post('/api/agents/knowledge/generate', {
        messages: [{ role: 'user', content: 'when does a field_validator run?' }],
        toolParams: { namespace: 'autorefs' },
      })
    ).json()) as { text: string };
    assert.match(generate.text, /A `field_validator` runs after parsing/);
    assert.doesNotMatch(generate.text, /\]\[(?:pydantic|\])/);
    assert.match(generate.text, /rows\[0\]\[row\.key\] = 1/, 'code keeps its brackets');
  });

  it('reports the models in /health', async () => {
    const health = (await (await service.get('/health')).json()) as {
      agent: string;
      chat_model: string;
      embedding_model: string;
    };
    assert.deepEqual([health.agent, health.chat_model, health.embedding_model], ['ready', 'extractive', 'local:all-MiniLM-L6-v2-int8']);
  });
});

describe('extractive answers with a provider for embeddings', () => {
  it("asks the service's embedding model how close each passage is to the question, once per passage, and counts the calls", async () => {
    const { service, provider } = await startServiceWithProvider({ environment: { KNOWLEDGE_AGENT_MODEL: 'extractive' } });
    try {
      const ingested = await service.post('/tools/ingest', {
        namespace: 'meaning',
        sources: [
          {
            type: 'text',
            title: 'Caching',
            value: '# Caching\n\nResponses are cached for five minutes.\n\nThe cache is cleared on every deployment.',
          },
        ],
      });
      assert.equal(ingested.status, 200);
      const question = 'when is the cache cleared?';
      const response = await service.post('/api/agents/knowledge/generate', {
        messages: [{ role: 'user', content: question }],
        toolParams: { namespace: 'meaning' },
      });
      assert.equal(response.status, 200);
      assert.match(((await response.json()) as { text: string }).text, /cleared on every deployment \[1\]/);
      // The search embeds the question; the answerer each passage under its section's title, the question being
      // remembered from the search.
      const inputs = provider.embeddingRequests().map((request) => (request.body as { input: string | string[] }).input);
      const asList = (input: string | string[]) => (Array.isArray(input) ? input : [input]);
      assert.ok(
        inputs.some((input) => asList(input).includes('Caching\nThe cache is cleared on every deployment.')),
        JSON.stringify(inputs),
      );
      assert.equal(inputs.flatMap(asList).filter((input) => input === question).length, 1, JSON.stringify(inputs));
      // Asked again, and then a related question: the question, its search's vector and the passages' vectors are
      // remembered, so the first costs no embedding and the second only its search's.
      for (const asked of [question, 'how long are responses cached?']) {
        const again = await service.post('/api/agents/knowledge/generate', {
          messages: [{ role: 'user', content: asked }],
          toolParams: { namespace: 'meaning' },
        });
        assert.equal(again.status, 200);
      }
      const later = provider
        .embeddingRequests()
        .slice(inputs.length)
        .map((request) => asList((request.body as { input: string | string[] }).input));
      assert.deepEqual(later, [['how long are responses cached?']]);
      // Each of those calls is counted in /metrics, the answerer's too.
      const metrics = await (await service.get('/metrics')).text();
      const counted = /^provider_calls_total\{kind="embeddings",model="text-embedding-3-small",outcome="success"\} (\d+)$/m.exec(metrics);
      assert.equal(Number(counted?.[1]), inputs.length + later.length, metrics);
    } finally {
      await service.dispose();
    }
  });
});
