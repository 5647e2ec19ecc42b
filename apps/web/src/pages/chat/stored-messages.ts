// A conversation's stored messages (every page of them), the stored turn that replaces a streamed one, and the
// message a turn sends (its attachments read as base64).
import { api } from '../../api';
import type { List } from '../../state';
import type { ChatMessage } from './types';

export async function fetchMessages(base: string, id: string): Promise<ChatMessage[]> {
  const all: ChatMessage[] = [];
  let cursor: string | null | undefined;
  do {
    const page = await api<List<ChatMessage>>(
      'GET',
      `${base}/${id}/messages?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    all.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

/**
 * The stored turn that replaces the streamed one, once it is recorded (null when it is not after a few seconds). The
 * stored answer's citations carry no chunk text (nor a cluster summary when recorded before the summary was kept):
 * the streamed answer's are kept on it (no second fetch).
 */
export async function storedTurn(
  base: string,
  id: string,
  live?: ChatMessage,
): Promise<ChatMessage[] | null> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const stored = await fetchMessages(base, id);
    const last = stored.at(-1);
    if (last?.role === 'assistant') {
      if (!live || live.citations.length === 0) return stored;
      const citations = last.citations.map((citation) => {
        const streamed = live.citations.find((c) => c.index === citation.index);
        return streamed?.documentId === citation.documentId
          ? {
              ...citation,
              text: citation.text ?? streamed.text,
              summary: citation.summary ?? streamed.summary,
            }
          : citation;
      });
      return [...stored.slice(0, -1), { ...last, citations }];
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return null;
}

const readBase64 = (file: File): Promise<string> =>
  new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('unreadable file'));
    reader.readAsDataURL(file);
  });

/** The turn's `message`: the text alone, or the text with its attachments. */
export async function outgoing(text: string, attachments: readonly File[]): Promise<unknown> {
  if (attachments.length === 0) return text;
  return {
    content: text,
    attachments: await Promise.all(
      attachments.map(async (file) => ({
        name: file.name,
        mimeType: file.type || 'application/octet-stream',
        dataBase64: await readBase64(file),
      })),
    ),
  };
}
