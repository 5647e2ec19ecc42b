// Crash safety of a conversation turn: the api is SIGKILLed while the model is answering. The client had been told its
// message (the streamed turn's `conversation` event, sent once the message is in the log); after a restart it is
// listed, no answer is listed as complete, and the conversation goes on. (The message's append overlaps the model
// call, so a process killed before that event may have asked the model about a message it never kept: the client
// was told nothing, its request failed, and nothing of the turn is in the log: a retry starts it again.)
import { MEMORY_EXTRACTION_HEADER } from '#memory';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeUpstream } from '#testing/fake-openai-upstream';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, tempDataDir } from './support/api.js';
import { agentInNewSpace } from './support/scenario.js';
import { spawnApi, stopProcess } from './support/process.js';

interface Message {
  id: string;
  role: 'user' | 'assistant';
  content: string | null;
  status: 'complete' | 'incomplete';
}

/** Reads a stream to its end; a connection reset rejects. */
async function drained(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  while (!(await reader.read()).done);
}

describe('conversation turn killed mid-answer (e2e, separate process)', () => {
  it('keeps the user message and no complete answer across a SIGKILL; the next turn works', async () => {
    const upstream = await startFakeUpstream({ hang: true });
    const dataDir = tempDataDir();
    const modelsFile = join(dataDir, 'models.yaml');
    writeFileSync(
      modelsFile,
      `models:\n  - { key: hang-chat, modelId: fake-model, provider: fake, baseUrl: '${upstream.url}', kind: chat }\n`,
    );
    const env = { DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY, MODELS_FILE: modelsFile };
    const first = await spawnApi(env);
    const api = client(first.url);
    const { turns: conversations } = await agentInNewSpace(
      api,
      { name: 'Hanging', model: 'hang-chat' },
      'Turn crash',
    );

    // The turn reaches the model, which never answers; the client is told its message is kept.
    const response = await fetch(`${first.url}${conversations}`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'remember the lighthouse', stream: true }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (!received.includes('event: conversation')) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`the stream ended before its conversation event: ${received}`);
      received += decoder.decode(chunk.value, { stream: true });
    }
    // The turns' chat requests, not the memory extraction that follows an answer.
    const chatRequests = () =>
      upstream.requests.filter(
        (r) => r.path === '/v1/chat/completions' && !r.rawBody.includes(MEMORY_EXTRACTION_HEADER),
      );
    await waitUntil(() => chatRequests().length > 0, 15_000);
    expect(JSON.stringify(chatRequests()[0]!.body)).toContain('remember the lighthouse');

    process.kill(first.child.pid!, 'SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    // The stream breaks off: no answer reached the client.
    await expect(drained(reader)).rejects.toThrow();

    const second = await spawnApi(env);
    const again = client(second.url);
    try {
      const listed = await again.get<{ data: { id: string; messageCount: number }[] }>(conversations);
      expect(listed.status).toBe(200);
      expect(listed.body.data).toHaveLength(1);
      const conversationId = listed.body.data[0]!.id;
      const messages = await again.get<{ data: Message[] }>(`${conversations}/${conversationId}/messages`);
      expect(messages.status).toBe(200);
      expect(messages.body.data.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
        'remember the lighthouse',
      ]);
      expect(messages.body.data.filter((m) => m.role === 'assistant' && m.status === 'complete')).toEqual([]);

      // The upstream answers again: the next turn in the same conversation is answered and recorded.
      upstream.set({ hang: false, reply: 'The lighthouse is remembered.' });
      const next = await again.post<{
        conversationId: string;
        created: boolean;
        message: { content: string; status: string };
      }>(conversations, { conversationId, message: 'do you remember?' });
      expect(next.status).toBe(200);
      expect(next.body).toMatchObject({
        conversationId,
        created: false,
        message: { content: 'The lighthouse is remembered.', status: 'complete' },
      });
      const after = await again.get<{ data: Message[] }>(`${conversations}/${conversationId}/messages`);
      expect(after.body.data.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
        'remember the lighthouse',
        'do you remember?',
      ]);
      expect(after.body.data.at(-1)).toMatchObject({
        role: 'assistant',
        content: 'The lighthouse is remembered.',
        status: 'complete',
      });
      // The model saw the earlier, unanswered message as history.
      expect(JSON.stringify(chatRequests().at(-1)!.body)).toContain('remember the lighthouse');
    } finally {
      await stopProcess(second.child);
      await upstream.close();
    }
  }, 60_000);
});
