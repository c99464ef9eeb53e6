// One document with a title and a URL, one question asked through every channel that answers: each names the cited
// page the same way (its title linked to its URL), except where the contract fixes Variant 2's file names (the
// generate endpoint, and the AG-UI and Mastra streams of Variant 2's agent).
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { askCommand } from '../../src/cli/ask-command.js';
import { parseSseData, variant1Answer } from '../support/sse.js';
import { startServiceWithProvider, type ListeningTestService } from '../support/service.js';
import { startStaticSite, type StaticSite } from '../support/static-site.js';

const question = 'How often do tokens rotate?';
const page =
  '<html><head><title>Token Rotation</title></head><body><h1>Token Rotation</h1><p>Tokens rotate every 90 days. Admins may rotate earlier.</p></body></html>';

function sourcesLine(answer: string): string | undefined {
  return answer.trimEnd().split('\n').at(-1);
}

describe('source labels across channels', () => {
  let service: ListeningTestService;
  let site: StaticSite;
  let linkedTitle: string;
  let fileName: string;

  before(async () => {
    // Listening: the CLI's ask talks to the service over HTTP, as from a terminal.
    ({ service } = await startServiceWithProvider({ listen: true }));
    site = await startStaticSite({ '/guide/tokens.html': { contentType: 'text/html', body: page } });
    const url = `${site.url}/guide/tokens.html`;
    const ingested = await service.post('/tools/ingest', { namespace: 'labels', sources: [{ type: 'url', value: url }] });
    assert.equal(ingested.status, 200, await ingested.clone().text());
    const search = (await (await service.post('/api/tools/searchDocs', { namespace: 'labels', query: question })).json()) as {
      results: { file: string; title: string; origin: string }[];
    };
    const [result] = search.results;
    assert.ok(result !== undefined);
    assert.equal(result.title, 'Token Rotation');
    assert.equal(result.origin, url);
    linkedTitle = `[Token Rotation](${url})`;
    fileName = result.file;
  });

  after(async () => {
    await service.dispose();
    await site.close();
  });

  it('Variant 1 /agent and the CLI ask name the page by its title, linked to its URL', async () => {
    const stream = await service.post('/agent', {
      thread_id: 't',
      run_id: 'r',
      messages: [{ role: 'user', content: `@knowledge ${question}` }],
      tool_params: { namespace: 'labels' },
    });
    assert.equal(sourcesLine(variant1Answer(parseSseData(await stream.text()))), `Sources: ${linkedTitle}`);

    const stdout = new PassThrough();
    let printed = '';
    stdout.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
    });
    const env = { KNOWLEDGE_AGENT_URL: service.baseUrl };
    assert.equal(
      await askCommand.run([question, '--namespace', 'labels'], { stdout, stderr: new PassThrough(), env, cwd: process.cwd() }),
      0,
    );
    assert.equal(sourcesLine(printed), `Sources: ${linkedTitle}`);
  });

  it('the OpenAI-compatible API names it the same way, streamed and not', async () => {
    const body = { model: 'knowledge/labels', messages: [{ role: 'user', content: question }] };
    const completion = (await (await service.post('/v1/chat/completions', body)).json()) as {
      choices: { message: { content: string } }[];
    };
    assert.equal(sourcesLine(completion.choices[0]?.message.content ?? ''), `Sources: ${linkedTitle}`);

    const chunks = parseSseData(await (await service.post('/v1/chat/completions', { ...body, stream: true })).text());
    const streamed = chunks
      .map((chunk) => (chunk as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content ?? '')
      .join('');
    assert.equal(sourcesLine(streamed), `Sources: ${linkedTitle}`);
  });

  it("Variant 2's generate, AG-UI and Mastra streams keep the file name the contract makes its citation label", async () => {
    const generated = (await (
      await service.post('/api/agents/knowledge/generate', {
        messages: [{ role: 'user', content: question }],
        toolParams: { namespace: 'labels' },
      })
    ).json()) as { text: string; sources: string[] };
    assert.deepEqual(generated.sources, [fileName]);
    assert.equal(sourcesLine(generated.text), `Sources: ${fileName}`);

    const events = parseSseData(
      await (
        await service.post('/agent', {
          threadId: 't',
          runId: 'r',
          messages: [{ id: 'm', role: 'user', content: question }],
          forwardedProps: { namespace: 'labels' },
        })
      ).text(),
    ) as { type: string; delta?: string }[];
    const text = events
      .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
      .map((event) => event.delta)
      .join('');
    assert.equal(sourcesLine(text), `Sources: ${fileName}`);

    const mastra = parseSseData(
      await (
        await service.post('/api/agents/knowledge/stream', {
          messages: [{ role: 'user', content: question }],
          toolParams: { namespace: 'labels' },
        })
      ).text(),
    ) as { type?: string; payload?: { text?: string } }[];
    const mastraText = mastra
      .filter((chunk) => chunk.type === 'text-delta')
      .map((chunk) => chunk.payload?.text)
      .join('');
    assert.equal(sourcesLine(mastraText), `Sources: ${fileName}`);
  });
});
