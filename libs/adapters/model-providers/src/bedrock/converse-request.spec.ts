import { ValidationError } from '#kernel';
import { converseBody } from './converse-request.js';

describe('converseBody (a chat request as Bedrock Converse takes it)', () => {
  it('puts the system prompt apart, settings in inferenceConfig, and images as base64 bytes', () => {
    expect(
      converseBody({
        messages: [
          { role: 'system', content: 'rules' },
          { role: 'developer', content: [{ type: 'text', text: 'more rules' }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image_url', image_url: { url: 'data:image/jpg;base64,AAAA' } },
            ],
          },
        ],
        max_completion_tokens: 100,
        temperature: 0,
        top_p: 0.9,
        stop: ['END', 'STOP'],
      }),
    ).toEqual({
      system: [{ text: 'rules' }, { text: 'more rules' }],
      messages: [
        {
          role: 'user',
          content: [{ text: 'look' }, { image: { format: 'jpeg', source: { bytes: 'AAAA' } } }],
        },
      ],
      inferenceConfig: { maxTokens: 100, temperature: 0, topP: 0.9, stopSequences: ['END', 'STOP'] },
    });
  });

  it('sends tool calls as toolUse and merges the tool results into one user turn, roles alternating', () => {
    const body = converseBody({
      messages: [
        { role: 'user', content: 'weather in Oslo and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 't1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
            { id: 't2', type: 'function', function: { name: 'weather', arguments: 'not json' } },
          ],
        },
        { role: 'tool', tool_call_id: 't1', content: 'sunny' },
        { role: 'tool', tool_call_id: 't2', content: [{ type: 'text', text: 'rain' }] },
        { role: 'user', content: 'thanks' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'weather', description: 'the weather', parameters: { type: 'object' } },
        },
      ],
      tool_choice: 'required',
    });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'weather in Oslo and Rome?' }] },
      {
        role: 'assistant',
        content: [
          { toolUse: { toolUseId: 't1', name: 'weather', input: { city: 'Oslo' } } },
          { toolUse: { toolUseId: 't2', name: 'weather', input: {} } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 't1', content: [{ text: 'sunny' }] } },
          { toolResult: { toolUseId: 't2', content: [{ text: 'rain' }] } },
          { text: 'thanks' },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'weather',
            description: 'the weather',
            inputSchema: { json: { type: 'object' } },
          },
        },
      ],
      toolChoice: { any: {} },
    });
  });

  it('names a forced tool, leaves the tools out for "none" without tool history, and marks cache points', () => {
    const tools = [{ type: 'function' as const, function: { name: 'f' } }];
    expect(
      converseBody({
        messages: [{ role: 'user', content: 'x' }],
        tools,
        tool_choice: { type: 'function', function: { name: 'f' } },
      }).toolConfig,
    ).toEqual({
      tools: [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object', properties: {} } } } }],
      toolChoice: { tool: { name: 'f' } },
    });
    expect(
      converseBody({ messages: [{ role: 'user', content: 'x' }], tools, tool_choice: 'none' }).toolConfig,
    ).toBe(undefined);
    const marked = converseBody({
      messages: [
        {
          role: 'system',
          content: [{ type: 'text', text: 'long rules', cache_control: { type: 'ephemeral' } }],
        },
        { role: 'user', content: 'q' },
      ],
    } as never);
    expect(marked.system).toEqual([{ text: 'long rules' }, { cachePoint: { type: 'default' } }]);
  });

  it('refuses an image given by link (Bedrock fetches none) with a clear 400', () => {
    expect(() =>
      converseBody({
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
        ],
      }),
    ).toThrow(ValidationError);
  });
});
