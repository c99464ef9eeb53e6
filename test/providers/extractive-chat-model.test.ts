// The extractive answer model: quotes the best-matching prose sentences of the snippets with their citations.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatStreamPart } from '../../src/providers/chat-model.js';
import { createExtractiveChatModel, proseSentences } from '../../src/providers/extractive-chat-model.js';

async function answer(query: string, snippets: string[]): Promise<string> {
  const parts: ChatStreamPart[] = [];
  const stream = createExtractiveChatModel().stream({
    messages: [],
    tools: [],
    grounding: { query, snippets: snippets.map((text, index) => ({ number: index + 1, text })) },
  });
  for await (const part of stream) parts.push(part);
  assert.deepEqual(parts.at(-1), { type: 'finish', reason: 'stop' });
  return parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('');
}

describe('extractive chat model', () => {
  it('quotes the sentences that answer the question, with the number of their snippet', async () => {
    const text = await answer('how long are backups kept?', [
      '# Logging\n\nLogs are JSON lines.',
      '# Backups\n\nSnapshots are taken nightly. Backups are kept for thirty days before deletion.',
    ]);
    assert.match(text, /Backups are kept for thirty days before deletion \[2\]\./);
    assert.doesNotMatch(text, /JSON lines/);
  });

  it('quotes at most three sentences and at most two of one snippet', async () => {
    const snippet = 'Tokens rotate daily. Tokens expire hourly. Tokens are scoped. Tokens are hashed.';
    const text = await answer('tokens', [snippet, 'Tokens are logged never.']);
    const quoted = text.split('\n').filter((line) => line.startsWith('- '));
    assert.equal(quoted.length, 3);
    assert.equal(quoted.filter((line) => line.endsWith('[1].')).length, 2);
  });

  it('says so when no sentence matches, citing nothing', async () => {
    const text = await answer('kubernetes helm chart', ['# Billing\n\nInvoices are monthly.']);
    assert.equal(text, 'The documentation found does not answer this directly.');
  });

  it('leaves code blocks, tables and headings out of the sentences', () => {
    assert.deepEqual(proseSentences('# Title\n\nRun the tool now. It works well.\n\n```sh\nrun --now\n```\n\n| a | b |\n|---|---|\n- A listed item here.'), [
      'Run the tool now.',
      'It works well.',
      'A listed item here.',
    ]);
  });
});
