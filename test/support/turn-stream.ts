// A streamed conversation turn read as its events come: `next(name, where?)` waits for the first event of that name
// (and, given, matching `where`); `done` settles when the stream ends.
import { waitUntil } from '#testing/fixtures';
import { turnsOf } from './scenario.js';

type Json = Record<string, unknown>;

export interface StreamedEvent {
  readonly event: string;
  readonly data: Json;
}

export function streamTurn(baseUrl: string, key: string, agentId: string, body: Json) {
  const events: StreamedEvent[] = [];
  let ended = false;
  const done = (async () => {
    const response = await fetch(`${baseUrl}${turnsOf(agentId)}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
    });
    if (response.status !== 200) throw new Error(`the turn answered ${response.status}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const lines = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        const data = lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice(6));
        events.push({
          event: lines.find((line) => line.startsWith('event: '))?.slice(7) ?? 'message',
          data: JSON.parse(data.join('\n')) as Json,
        });
      }
    }
    ended = true;
  })();
  done.catch(() => (ended = true));
  const next = async (name: string, where: (data: Json) => boolean = () => true): Promise<StreamedEvent> => {
    const found = () => events.find((event) => event.event === name && where(event.data));
    await waitUntil(() => ended || found() !== undefined, 30_000);
    const event = found();
    if (!event) throw new Error(`the stream ended without ${name}: ${JSON.stringify(events)}`);
    return event;
  };
  return { events, done, next };
}
