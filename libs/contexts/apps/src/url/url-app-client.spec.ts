import { urlToolResult } from './url-app-client.js';

describe("what a model reads of a URL App tool's answer", () => {
  it('reads `content` as text or MCP-like blocks, and `isError` as a tool error', () => {
    expect(urlToolResult(200, JSON.stringify({ content: 'Sunny' }), 1024)).toEqual({
      ok: true,
      text: 'Sunny',
    });
    expect(
      urlToolResult(
        200,
        JSON.stringify({
          content: [
            { type: 'text', text: 'A chart:' },
            { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
          ],
        }),
        1024,
      ),
    ).toEqual({ ok: true, text: 'A chart:\n[image: image/png, 5 bytes, not shown]' });
    expect(urlToolResult(200, JSON.stringify({ content: 'No such city', isError: true }), 1024)).toEqual({
      ok: false,
      error: 'No such city',
    });
  });

  it('reads any other JSON or text as text, cut at the cap with a note', () => {
    expect(urlToolResult(200, JSON.stringify({ temperature: 21 }), 1024)).toEqual({
      ok: true,
      text: '{"temperature":21}',
    });
    expect(urlToolResult(201, 'plain words', 1024)).toEqual({ ok: true, text: 'plain words' });
    expect(urlToolResult(200, 'x'.repeat(100), 10)).toEqual({
      ok: true,
      text: `${'x'.repeat(10)}\n[result cut at 10 of 100 bytes]`,
    });
  });

  it('makes any status outside 2xx a tool error naming it, with the start of what the App said', () => {
    expect(urlToolResult(500, '{"error":"down"}', 1024)).toEqual({
      ok: false,
      error: 'The App answered 500: {"error":"down"}',
    });
    expect(urlToolResult(404, '', 1024)).toEqual({ ok: false, error: 'The App answered 404' });
  });
});
