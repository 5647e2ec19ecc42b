// Branches of a conversation over real HTTP: an edited or regenerated question starts a branch beside the earlier
// one, which is kept; the messages route lists the branch continued with each message's alternatives; switching
// back continues the earlier branch. What reaches the (fake) upstream model is the branch's history, nothing of the
// others. Stored and incognito conversations alike.
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { client, startTestApi, uniqueName, writeModelsFile, type TestApi } from './support/api.js';
import { LLM, newAgent, newSpace, type Json } from './support/scenario.js';

interface Turn {
  conversationId: string;
  userMessage: { id: string };
  message: { id: string; content: string };
}
interface Listed {
  id: string;
  role: 'user' | 'assistant';
  content: string | null;
  parentId: string | null;
  attachments: { name: string }[];
  siblings: { ids: string[]; index: number } | null;
}
interface ChatBody {
  messages: { role: string; content: unknown }[];
}

describe('Conversation branches (e2e)', () => {
  let api: TestApi;
  let upstream: FakeUpstream;
  let admin: ReturnType<typeof client>;
  let agentId: string;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    api = await startTestApi({
      MODELS_FILE: writeModelsFile([
        'providers:',
        `  fake: { baseUrl: '${upstream.url}' }`,
        'models:',
        '  - { key: fake-chat, modelId: fake-model, provider: fake, kind: chat, contextWindow: 64000 }',
      ]),
    });
    admin = client(api.url);
    const spaceId = await newSpace(admin, uniqueName('Branches'));
    agentId = await newAgent(admin, spaceId, { model: 'fake-chat', knowledgeEnabled: false });
  }, 60_000);
  afterAll(async () => {
    await api.close();
    await upstream.close();
    expect(api.logs()).not.toContain('unhandled error');
  });

  const base = () => `${LLM}/${agentId}/conversation`;
  /** A turn answered with `reply`; what the model was sent besides the system prompt. */
  const ask = async (body: Json, reply: string) => {
    upstream.reset();
    upstream.set({ reply });
    const turn = await admin.post<Turn>(base(), body);
    expect([200, 201]).toContain(turn.status);
    const chat = upstream.requests.filter((request) => request.path === '/v1/chat/completions').at(-1);
    const sent = (chat!.body as ChatBody).messages
      .filter((message) => message.role !== 'system')
      .map((message) => `${message.role}:${String(message.content)}`);
    return { turn: turn.body, sent };
  };
  const listing = async (conversationId: string, query = '') => {
    const reply = await admin.get<{ data: Listed[] }>(`${base()}/${conversationId}/messages${query}`);
    expect(reply.status).toBe(200);
    return reply.body.data;
  };
  const texts = (messages: Listed[]) => messages.map((message) => message.content);

  it.each([['normal'], ['incognito']])(
    'keeps the earlier branch of an edited question (%s), lists the branch continued and switches back',
    async (visibility) => {
      const first = await ask({ message: 'Q1', ...(visibility === 'incognito' ? { visibility } : {}) }, 'A1');
      const { conversationId } = first.turn;
      const second = await ask({ conversationId, message: 'Q2' }, 'A2');
      expect(second.sent).toEqual(['user:Q1', 'assistant:A1', 'user:Q2']);

      // The question edited: a branch after A1; the model reads nothing of Q2 and A2.
      const edited = await ask(
        { conversationId, message: 'Q2 edited', parentMessageId: first.turn.message.id },
        'A2 edited',
      );
      expect(edited.sent).toEqual(['user:Q1', 'assistant:A1', 'user:Q2 edited']);
      const current = await listing(conversationId);
      expect(texts(current)).toEqual(['Q1', 'A1', 'Q2 edited', 'A2 edited']);
      expect(current[2]).toMatchObject({
        parentId: first.turn.message.id,
        siblings: { ids: [second.turn.userMessage.id, edited.turn.userMessage.id], index: 1 },
      });
      expect(current[0]!.siblings).toBeNull();
      expect(texts(await listing(conversationId, '?branches=all'))).toEqual([
        'Q1',
        'A1',
        'Q2',
        'A2',
        'Q2 edited',
        'A2 edited',
      ]);
      // The next turn continues the branch the conversation is on.
      const third = await ask({ conversationId, message: 'Q3' }, 'A3');
      expect(third.sent).toEqual([
        'user:Q1',
        'assistant:A1',
        'user:Q2 edited',
        'assistant:A2 edited',
        'user:Q3',
      ]);

      // Back to the first branch: its newest message is the head again, and the next turn follows it.
      const switched = await admin.put<{ headId: string }>(`${base()}/${conversationId}/head`, {
        messageId: second.turn.userMessage.id,
      });
      expect(switched.status).toBe(200);
      expect(switched.body.headId).toBe(second.turn.message.id);
      const back = await listing(conversationId);
      expect(texts(back)).toEqual(['Q1', 'A1', 'Q2', 'A2']);
      expect(back[2]!.siblings).toMatchObject({ index: 0 });
      const fourth = await ask({ conversationId, message: 'Q4' }, 'A4');
      expect(fourth.sent).toEqual(['user:Q1', 'assistant:A1', 'user:Q2', 'assistant:A2', 'user:Q4']);

      // The same question asked again from the start (a new answer to the first question).
      const again = await ask({ conversationId, message: 'Q1', parentMessageId: null }, 'A1 again');
      expect(again.sent).toEqual(['user:Q1']);
      const regenerated = await listing(conversationId);
      expect(texts(regenerated)).toEqual(['Q1', 'A1 again']);
      expect(regenerated[0]!.siblings).toMatchObject({ index: 1 });
      expect(regenerated[0]!.siblings!.ids).toHaveLength(2);
    },
  );

  it('hands the children of a deleted message to its parent, and moves a deleted head to its parent', async () => {
    const first = await ask({ message: 'Q1' }, 'A1');
    const { conversationId } = first.turn;
    const second = await ask({ conversationId, message: 'Q2' }, 'A2');
    expect((await admin.delete(`${base()}/${conversationId}/messages/${first.turn.message.id}`)).status).toBe(
      204,
    );
    const left = await listing(conversationId);
    expect(texts(left)).toEqual(['Q1', 'Q2', 'A2']);
    expect(left[1]!.parentId).toBe(first.turn.userMessage.id);
    expect(
      (await admin.delete(`${base()}/${conversationId}/messages/${second.turn.message.id}`)).status,
    ).toBe(204);
    const listed = await admin.get<{ data: { id: string; headId: string }[] }>(base());
    expect(listed.body.data.find((conversation) => conversation.id === conversationId)?.headId).toBe(
      second.turn.userMessage.id,
    );
    const next = await ask({ conversationId, message: 'Q3' }, 'A3');
    expect(next.sent).toEqual(['user:Q1', 'user:Q2', 'user:Q3']);
  });

  it("keeps an edited question's files: the new question names the earlier one's attachments", async () => {
    const file = {
      name: 'notes.txt',
      mimeType: 'text/plain',
      dataBase64: Buffer.from('Basalt is dark.').toString('base64'),
    };
    const first = await ask({ message: { content: 'Read this', attachments: [file] } }, 'Read.');
    const { conversationId } = first.turn;
    const edited = await ask(
      {
        conversationId,
        parentMessageId: null,
        message: { content: 'Read this again', attachments: [{ fromMessageId: first.turn.userMessage.id }] },
      },
      'Read again.',
    );
    expect(edited.sent.join('\n')).toContain('Basalt is dark.');
    const listed = await listing(conversationId);
    expect(listed[0]).toMatchObject({ content: 'Read this again', attachments: [{ name: 'notes.txt' }] });
    const wrong = await admin.post(base(), {
      conversationId,
      message: { content: 'x', attachments: [{ fromMessageId: first.turn.message.id }] },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ error: { code: 'invalid_attachment' } });
  });

  it('refuses a branch after a message the conversation does not hold, or without a conversation', async () => {
    const first = await ask({ message: 'Q1' }, 'A1');
    const { conversationId } = first.turn;
    upstream.reset();
    const unknown = await admin.post(base(), { conversationId, message: 'Q', parentMessageId: 'msg_nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: 'message_not_found' } });
    const orphan = await admin.post(base(), { message: 'Q', parentMessageId: first.turn.message.id });
    expect(orphan.status).toBe(400);
    const switched = await admin.put(`${base()}/${conversationId}/head`, { messageId: 'msg_nope' });
    expect(switched.status).toBe(404);
    expect(switched.body).toMatchObject({ error: { code: 'message_not_found' } });
    expect((await admin.put(`${base()}/${conversationId}/head`, {})).status).toBe(400);
    // Nothing was posted: the conversation is as it was.
    expect(texts(await listing(conversationId))).toEqual(['Q1', 'A1']);
  });
});
