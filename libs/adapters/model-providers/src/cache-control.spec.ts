import { cacheControlOf, withoutCacheControl } from './cache-control.js';
import type { ChatRequest } from './provider.port.js';

const ephemeral = { type: 'ephemeral' } as const;

describe('cache marks on chat requests', () => {
  it('returns a request without marks as it is', () => {
    const request: ChatRequest = {
      messages: [Object.freeze({ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] })],
      tools: [{ type: 'function', function: { name: 'f' } }],
    };
    expect(withoutCacheControl(request)).toBe(request);
  });

  it('strips marks from parts, messages, tool calls and tools, copying only what carried one', () => {
    const plain = Object.freeze({ role: 'user' as const, content: 'history' });
    const request = {
      messages: [
        plain,
        { role: 'system', content: [{ type: 'text', text: 'doc', cache_control: ephemeral }] },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 't', type: 'function', function: { name: 'f', arguments: '{}' }, cache_control: ephemeral },
          ],
        },
        { role: 'tool', tool_call_id: 't', content: 'ok', cache_control: ephemeral },
      ],
      tools: [{ type: 'function', function: { name: 'f' }, cache_control: ephemeral }],
      temperature: 0.2,
    } as unknown as ChatRequest;
    const stripped = withoutCacheControl(request);
    expect(JSON.stringify(stripped)).not.toContain('cache_control');
    expect(stripped.messages[0]).toBe(plain);
    expect(stripped.messages[1]).toEqual({ role: 'system', content: [{ type: 'text', text: 'doc' }] });
    expect(stripped.temperature).toBe(0.2);
    expect(JSON.stringify(request)).toContain('cache_control');
  });

  it('reads a mark only when it is an object with a type', () => {
    expect(cacheControlOf({ cache_control: ephemeral })).toEqual(ephemeral);
    expect(cacheControlOf({ cache_control: 'yes' })).toBeUndefined();
    expect(cacheControlOf({ cache_control: null })).toBeUndefined();
    expect(cacheControlOf('text')).toBeUndefined();
  });
});
