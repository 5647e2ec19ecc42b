import { capUtf8, mcpResultText } from './mcp-content.js';

describe('what a model reads of an MCP tool result', () => {
  it('keeps text, describes images and binary resources, names links and embedded text resources', () => {
    const { text } = mcpResultText(
      {
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
          { type: 'resource', resource: { uri: 'test://1', mimeType: 'text/plain', text: 'inside' } },
          { type: 'resource', resource: { uri: 'test://2', mimeType: 'application/gzip', blob: 'AAAAAAAA' } },
          { type: 'hologram' },
        ],
      },
      1000,
    );
    expect(text.split('\n')).toEqual([
      'first',
      '[image: image/png, 3 bytes, not shown]',
      '[resource link: a.txt <file:///a.txt> (text/plain)]',
      '[resource <test://1> (text/plain)]',
      'inside',
      '[resource <test://2>: application/gzip, 6 bytes, not shown]',
      '[hologram content, not shown]',
    ]);
  });

  it('reads structured content when no text carries it', () => {
    expect(mcpResultText({ content: [], structuredContent: { sum: 3 } }, 100).text).toBe('{"sum":3}');
    expect(
      mcpResultText({ content: [{ type: 'text', text: '3' }], structuredContent: { sum: 3 } }, 100).text,
    ).toBe('3');
  });

  it('cuts at the cap without splitting a character', () => {
    expect(capUtf8('aéb', 2)).toEqual({ text: 'a', cut: true });
    expect(capUtf8('aéb', 4)).toEqual({ text: 'aéb', cut: false });
    expect(mcpResultText({ content: [{ type: 'text', text: 'x'.repeat(20) }] }, 5)).toEqual({
      text: 'xxxxx\n[result cut at 5 of 20 bytes]',
      truncated: true,
    });
  });
});
