import { ValidationError } from '#kernel';
import { chatResultOf, ollamaReason, ollamaRequest, OllamaStreamReader } from './ollama-wire.js';

describe('ollamaRequest', () => {
  it('sends messages with bare base64 images, tool calls with object arguments and named tool results', () => {
    expect(
      ollamaRequest(
        'llama3.2',
        {
          messages: [
            { role: 'system', content: 'be brief' },
            {
              role: 'user',
              content: [
                { type: 'text', text: 'what is this?' },
                { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
              ],
            },
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'c1', type: 'function', function: { name: 'look', arguments: '{"zoom":2}' } },
                { id: 'c2', type: 'function', function: { name: 'measure', arguments: '{}' } },
              ],
            },
            { role: 'tool', tool_call_id: 'c1', content: 'a cat' },
            { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: '30 cm' }] },
          ],
        },
        true,
      ),
    ).toEqual({
      model: 'llama3.2',
      stream: true,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'what is this?', images: ['iVBORw0KGgo='] },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { function: { name: 'look', arguments: { zoom: 2 } } },
            { function: { name: 'measure', arguments: {} } },
          ],
        },
        { role: 'tool', content: 'a cat', tool_name: 'look' },
        { role: 'tool', content: '30 cm', tool_name: 'measure' },
      ],
    });
  });

  it('refuses an image link (Ollama takes bytes only) and tool arguments that are not an object', () => {
    expect(() =>
      ollamaRequest(
        'm',
        {
          messages: [
            { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/cat.png' } }] },
          ],
        },
        false,
      ),
    ).toThrow(ValidationError);
    expect(() =>
      ollamaRequest(
        'm',
        {
          messages: [
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '"x"' } }],
            },
          ],
        },
        false,
      ),
    ).toThrow(/JSON object/);
  });

  it('sends tools, the sampling fields as options and a JSON format; tool_choice none offers no tools', () => {
    const tools = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object' } } }];
    const request = ollamaRequest(
      'm',
      {
        messages: [{ role: 'user', content: 'x' }],
        tools,
        max_tokens: 64,
        temperature: 0.5,
        top_p: 0.8,
        top_k: 20,
        stop: ['END'],
        response_format: { type: 'json_object' },
      },
      false,
    );
    expect(request).toMatchObject({
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      options: { num_predict: 64, temperature: 0.5, top_p: 0.8, top_k: 20, stop: ['END'] },
      format: 'json',
    });
    expect(
      ollamaRequest('m', { messages: [{ role: 'user', content: 'x' }], tools, tool_choice: 'none' }, false)
        .tools,
    ).toBeUndefined();
  });
});

describe('Ollama answers', () => {
  it('reads text, the counts and the stop', () => {
    expect(
      chatResultOf({
        message: { role: 'assistant', content: 'Hi' },
        done: true,
        done_reason: 'length',
        prompt_eval_count: 12,
        eval_count: 2,
      }),
    ).toEqual({
      message: { role: 'assistant', content: 'Hi', refusal: null },
      finishReason: 'length',
      usage: { inputTokens: 12, cachedInputTokens: 0, outputTokens: 2 },
    });
  });

  it('reads tool calls with new ids, their arguments as JSON', () => {
    const result = chatResultOf({
      message: {
        role: 'assistant',
        content: '',
        tool_calls: [
          { function: { name: 'f', arguments: { a: 1 } } },
          { function: { name: 'g', arguments: {} } },
        ],
      },
      done: true,
      done_reason: 'stop',
    });
    expect(result.finishReason).toBe('tool_calls');
    expect(result.message.content).toBeNull();
    const calls = result.message.tool_calls as {
      id: string;
      function: { name: string; arguments: string };
    }[];
    expect(calls.map((call) => call.function)).toEqual([
      { name: 'f', arguments: '{"a":1}' },
      { name: 'g', arguments: '{}' },
    ]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
  });

  it('streams lines as deltas; the done line gives the finish and the usage', () => {
    const reader = new OllamaStreamReader();
    expect(reader.read({ message: { role: 'assistant', content: 'He' }, done: false })).toEqual([
      { delta: { role: 'assistant', content: 'He' }, finishReason: null },
    ]);
    const calls = reader.read({
      message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: {} } }] },
      done: false,
    });
    expect(calls[0]!.delta.tool_calls![0]).toMatchObject({
      index: 0,
      type: 'function',
      function: { name: 'f' },
    });
    expect(
      reader.read({
        message: { role: 'assistant', content: '' },
        done: true,
        done_reason: 'stop',
        prompt_eval_count: 5,
        eval_count: 4,
      }),
    ).toEqual([
      {
        delta: {},
        finishReason: 'tool_calls',
        usage: { inputTokens: 5, cachedInputTokens: 0, outputTokens: 4 },
      },
    ]);
  });
});

describe('ollamaReason', () => {
  it.each([
    [404, { error: "model 'x' not found" }, 'bad_request'],
    [400, { error: 'the input length exceeds the context length' }, 'context_length'],
    [500, { error: 'input length exceeds the context window' }, 'context_length'],
    [400, { error: 'invalid message format' }, undefined],
    [500, { error: 'llama runner process has terminated' }, undefined],
    [503, { error: 'server busy' }, undefined],
  ])('%i %j is %s (undefined: the status says)', (status, body, reason) => {
    expect(ollamaReason(status, JSON.stringify(body))).toBe(reason);
  });
});
