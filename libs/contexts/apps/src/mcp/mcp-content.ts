// What a model reads of an MCP tool result: its content blocks as text (text as it is; images, audio and binary
// resources described, never inlined, since a model's context is no place for base64 and the chat's image rules
// apply to them), structured content when no text carries it, all cut to a byte cap with a note saying so.

/** A content block as the protocol defines it; anything else (a newer kind) is named, not dropped silently. */
type ContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image' | 'audio'; readonly data: string; readonly mimeType: string }
  | {
      readonly type: 'resource_link';
      readonly uri: string;
      readonly name: string;
      readonly title?: string;
      readonly description?: string;
      readonly mimeType?: string;
    }
  | {
      readonly type: 'resource';
      readonly resource: {
        readonly uri: string;
        readonly mimeType?: string;
        readonly text?: string;
        readonly blob?: string;
      };
    }
  | { readonly type: string };

const base64Bytes = (data: string): number => Math.floor((data.replace(/=+$/, '').length * 3) / 4);

function blockText(block: ContentBlock): string {
  if ('text' in block && block.type === 'text') return block.text;
  if ((block.type === 'image' || block.type === 'audio') && 'data' in block)
    return `[${block.type}: ${block.mimeType}, ${base64Bytes(block.data)} bytes, not shown]`;
  if (block.type === 'resource_link' && 'uri' in block) {
    const about = [block.mimeType, block.description].filter(Boolean).join('; ');
    return `[resource link: ${block.title ?? block.name} <${block.uri}>${about ? ` (${about})` : ''}]`;
  }
  if (block.type === 'resource' && 'resource' in block) {
    const { uri, mimeType, text, blob } = block.resource;
    if (text !== undefined) return `[resource <${uri}>${mimeType ? ` (${mimeType})` : ''}]\n${text}`;
    return `[resource <${uri}>: ${mimeType ?? 'binary'}, ${base64Bytes(blob ?? '')} bytes, not shown]`;
  }
  return `[${block.type} content, not shown]`;
}

/** Cuts UTF-8 text to at most maxBytes without splitting a character. */
export function capUtf8(text: string, maxBytes: number): { readonly text: string; readonly cut: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.byteLength <= maxBytes) return { text, cut: false };
  let end = maxBytes;
  // A continuation byte (10xxxxxx) would start mid-character.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString('utf8'), cut: true };
}

/** The text a model reads of a tool result's content and structured content, within maxBytes. */
export function mcpResultText(
  result: { readonly content?: readonly unknown[]; readonly structuredContent?: unknown },
  maxBytes: number,
): { readonly text: string; readonly truncated: boolean } {
  const parts = (result.content ?? []).map((block) => blockText(block as ContentBlock));
  const hasText = parts.some((part) => part.trim().length > 0);
  if (!hasText && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  const whole = parts.join('\n');
  const { text, cut } = capUtf8(whole, maxBytes);
  if (!cut) return { text, truncated: false };
  const total = Buffer.byteLength(whole, 'utf8');
  return { text: `${text}\n[result cut at ${maxBytes} of ${total} bytes]`, truncated: true };
}
