import { ValidationError } from '#kernel';
import { geminiModelPath, geminiRequest, SKIP_SIGNATURE } from './gemini-request.js';

const PNG_URL = 'data:image/png;base64,iVBORw0KGgo=';

describe('geminiRequest', () => {
  it('puts system messages in systemInstruction and the turns in contents as user and model', () => {
    expect(
      geminiRequest({
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'developer', content: [{ type: 'text', text: 'in English' }] },
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image_url', image_url: { url: PNG_URL } },
            ],
          },
        ],
      }),
    ).toEqual({
      systemInstruction: { parts: [{ text: 'be brief' }, { text: 'in English' }] },
      contents: [
        { role: 'user', parts: [{ text: 'hi' }] },
        { role: 'model', parts: [{ text: 'hello' }] },
        {
          role: 'user',
          parts: [{ text: 'look' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }],
        },
      ],
    });
  });

  it('sends an http image as fileData with its media type, and refuses one whose type it cannot tell', () => {
    const image = (url: string) =>
      geminiRequest({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }] });
    expect(image('https://example.com/cat.JPG?size=2').contents[0]!.parts).toEqual([
      { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.JPG?size=2' } },
    ]);
    expect(() => image('https://example.com/cat')).toThrow(ValidationError);
    expect(() => image('ftp://example.com/cat.png')).toThrow(/data URL/);
  });

  it('sends tool calls as functionCall parts and their results as named functionResponse parts in one turn', () => {
    const request = geminiRequest({
      messages: [
        { role: 'user', content: 'weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'c2', type: 'function', function: { name: 'get_time', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
        { role: 'tool', tool_call_id: 'c2', content: '{"time":"noon"}' },
      ],
    });
    expect(request.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          {
            functionCall: { id: 'c1', name: 'get_weather', args: { city: 'Paris' } },
            thoughtSignature: SKIP_SIGNATURE,
          },
          { functionCall: { id: 'c2', name: 'get_time', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'c1', name: 'get_weather', response: { result: 'sunny' } } },
          { functionResponse: { id: 'c2', name: 'get_time', response: { time: 'noon' } } },
        ],
      },
    ]);
  });

  it('sends back the thought signature a client kept on a tool call', () => {
    const request = geminiRequest({
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'f', arguments: '{}' },
              extra_content: { google: { thought_signature: 'c2lnbmVk' } },
            } as never,
          ],
        },
      ],
    });
    expect(request.contents[1]!.parts[0]!.thoughtSignature).toBe('c2lnbmVk');
  });

  it('refuses a tool result for a call no assistant message made, and arguments that are not an object', () => {
    expect(() =>
      geminiRequest({
        messages: [
          { role: 'user', content: 'x' },
          { role: 'tool', tool_call_id: 'nope', content: 'y' },
        ],
      }),
    ).toThrow(/no earlier assistant message made/);
    expect(() =>
      geminiRequest({
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '[1]' } }],
          },
        ],
      }),
    ).toThrow(/JSON object/);
  });

  it('declares tools with their JSON Schema (without $schema) and maps tool_choice to functionCallingConfig', () => {
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: {
            $schema: 'http://json-schema.org/draft-07/schema#',
            type: 'object',
            properties: { city: { type: 'string' } },
            additionalProperties: false,
          },
        },
      },
      { type: 'function' as const, function: { name: 'get_time' } },
    ];
    const base = { messages: [{ role: 'user' as const, content: 'x' }], tools };
    expect(geminiRequest({ ...base, tool_choice: 'required' })).toMatchObject({
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Weather of a city',
              parametersJsonSchema: {
                type: 'object',
                properties: { city: { type: 'string' } },
                additionalProperties: false,
              },
            },
            { name: 'get_time' },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
    });
    expect(geminiRequest({ ...base, tool_choice: 'none' }).toolConfig).toEqual({
      functionCallingConfig: { mode: 'NONE' },
    });
    expect(
      geminiRequest({ ...base, tool_choice: { type: 'function', function: { name: 'get_time' } } })
        .toolConfig,
    ).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_time'] } });
    const allowedAuto = geminiRequest({
      ...base,
      tool_choice: {
        type: 'allowed_tools',
        allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'get_time' } }] },
      },
    });
    expect(allowedAuto.tools![0]!.functionDeclarations.map((tool) => tool.name)).toEqual(['get_time']);
    expect(allowedAuto.toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(geminiRequest(base).toolConfig).toBeUndefined();
  });

  it('maps the sampling fields to generationConfig', () => {
    expect(
      geminiRequest({
        messages: [{ role: 'user', content: 'x' }],
        max_tokens: 10,
        max_completion_tokens: 20,
        temperature: 0,
        top_p: 0.9,
        top_k: 40,
        stop: 'END',
        seed: 7,
        response_format: { type: 'json_object' },
      }).generationConfig,
    ).toEqual({
      maxOutputTokens: 20,
      temperature: 0,
      topP: 0.9,
      topK: 40,
      stopSequences: ['END'],
      seed: 7,
      responseMimeType: 'application/json',
    });
  });

  it('refuses a request with no turn', () => {
    expect(() => geminiRequest({ messages: [{ role: 'system', content: 'x' }] })).toThrow(/at least one/);
  });

  it('names the model as a resource', () => {
    expect(geminiModelPath('gemini-2.5-flash')).toBe('models/gemini-2.5-flash');
    expect(geminiModelPath('tunedModels/mine')).toBe('tunedModels/mine');
  });
});
