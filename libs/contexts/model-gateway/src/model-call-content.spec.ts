import { inputMessages, outputMessages } from './model-call-content.js';

describe('model call content as the GenAI conventions record it (unit)', () => {
  it('records each message with its role and typed parts, tool calls and their results included', () => {
    const recorded = JSON.parse(
      inputMessages([
        { role: 'developer', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is on this picture?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"cats"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'Cats sleep a lot.' },
      ]),
    ) as unknown;
    expect(recorded).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
      {
        role: 'user',
        parts: [
          { type: 'text', content: 'What is on this picture?' },
          { type: 'uri', modality: 'image' },
        ],
      },
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'call_1', name: 'lookup', arguments: { q: 'cats' } }],
      },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', result: 'Cats sleep a lot.' }] },
    ]);
    // An image's bytes are never copied into a span.
    expect(JSON.stringify(recorded)).not.toContain('AAAA');
  });

  it('records the answer as one output message with its finish reason', () => {
    expect(JSON.parse(outputMessages('Hello.', [], 'length'))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Hello.' }], finish_reason: 'length' },
    ]);
    expect(
      JSON.parse(
        outputMessages(
          '',
          [{ id: 'call_2', function: { name: 'search', arguments: 'not json' } }],
          'tool_calls',
        ),
      ),
    ).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'call_2', name: 'search', arguments: 'not json' }],
        finish_reason: 'tool_calls',
      },
    ]);
  });
});
