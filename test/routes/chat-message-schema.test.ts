// The chat message schema validates a message once, at the boundary, and reads either variant's field names into the
// agent's IncomingMessage; a field of the wrong shape carries nothing instead of refusing the request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chatMessageSchema } from '../../src/routes/agent/chat-message-schema.js';

describe('chatMessageSchema', () => {
  const cases: { name: string; message: unknown; expected: unknown }[] = [
    { name: 'text content as it is', message: { role: 'user', content: 'hi' }, expected: { role: 'user', content: 'hi', toolCalls: [] } },
    { name: 'no content is no text', message: { role: 'user' }, expected: { role: 'user', content: '', toolCalls: [] } },
    {
      name: 'content of another type is no text',
      message: { role: 'user', content: 42 },
      expected: { role: 'user', content: '', toolCalls: [] },
    },
    {
      name: 'content parts flattened to their text, one a line',
      message: { role: 'user', content: ['a', { type: 'text', text: 'b' }, null, [1], { text: 3 }, ''] },
      expected: { role: 'user', content: 'a\nb', toolCalls: [] },
    },
    {
      name: 'one text part as an object',
      message: { role: 'user', content: { type: 'text', text: 'c' } },
      expected: { role: 'user', content: 'c', toolCalls: [] },
    },
    {
      name: "OpenAI's tool_calls, without the malformed ones; arguments that are not text become {}",
      message: {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'a', function: { name: 'f', arguments: [[1]] } },
          { id: 1 },
          'x',
          { id: 'b', type: 'function', function: { name: 'g', arguments: '{"k":1}' } },
        ],
      },
      expected: {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'a', name: 'f', arguments: '{}' },
          { id: 'b', name: 'g', arguments: '{"k":1}' },
        ],
      },
    },
    {
      name: "AG-UI's toolCalls first, OpenAI's when toolCalls is not a list",
      message: { role: 'assistant', content: '', toolCalls: 'none', tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{}' } }] },
      expected: { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'f', arguments: '{}' }] },
    },
    {
      name: "a tool result's call id under either name, and the tool's name",
      message: { role: 'tool', content: 'done', toolCallId: 5, tool_call_id: 'a', name: 'create_ticket' },
      expected: { role: 'tool', content: 'done', name: 'create_ticket', toolCalls: [], toolCallId: 'a' },
    },
  ];
  for (const { name, message, expected } of cases) {
    it(name, () => assert.deepEqual(chatMessageSchema.parse(message), expected));
  }

  it('refuses a message without a role', () => {
    assert.equal(chatMessageSchema.safeParse({ content: 'hi' }).success, false);
    assert.equal(chatMessageSchema.safeParse({ role: 5, content: 'hi' }).success, false);
  });
});
