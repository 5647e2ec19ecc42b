// An incognito conversation as the routes read and change it (IncognitoReads, IncognitoWriter): pages of its messages
// by offset cursor, its tool calls' arguments in clear, a rename applied at once, and every change it cannot take
// refused as the routes always did (400 incognito_conversation, 404 message_not_found, 400 invalid_cursor).
import type { CommandContext } from '#eventsourcing';
import { loadConfig, PlatformError } from '#kernel';
import type { NewAnswer } from '../../conversation-records.js';
import { IncognitoConversations, type IncognitoConversation } from '../../incognito-conversations.js';
import { IncognitoReads, IncognitoWriter } from './incognito-place.js';

/** The person a conversation is looked up for (the policy's `user.own`: their own). */

const context: CommandContext = {
  actor: { kind: 'user', id: 'usr_1' },
  correlationId: 'c',
  now: () => new Date(),
};

const answer = (replyTo: string): NewAnswer => ({
  messageId: `${replyTo}_answer`,
  replyTo,
  content: 'ok',
  citations: [],
  status: 'complete',
  finishReason: 'stop',
  usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1 },
  provenance: {
    model: 'offline-chat',
    provider: 'offline',
    sampling: { temperature: null, topP: null, topK: null },
    agentRevision: 1,
    systemPromptSha256: 'x',
    sources: [],
    toolCalls: [{ name: 'search_knowledge', arguments: '{"query":"q"}', ok: true, sources: [] }],
    steps: 1,
    checkpointId: null,
    contextProviders: [],
  },
});

describe('an incognito conversation through the routes', () => {
  let incognito: IncognitoConversations;
  let live: IncognitoConversation;
  beforeEach(() => {
    incognito = new IncognitoConversations(loadConfig({}));
    incognito.start('cnv_1', 'agt_1', 'usr_1', 'title', new Date());
    live = incognito.find('cnv_1', 'agt_1')!;
    for (const id of ['m1', 'm2', 'm3']) {
      incognito.postUserMessage(live, id, `question ${id}`, [], new Date());
      incognito.recordAnswer(live, answer(id), new Date());
    }
  });
  afterEach(() => incognito.onModuleDestroy());

  it('pages its messages oldest first with an offset cursor, and refuses a cursor that is not one', async () => {
    const reads = new IncognitoReads(live);
    const first = await reads.messages({ limit: 4, cursor: null }, 'current');
    expect(first.data.map((message) => message.id)).toEqual(['m1', 'm1_answer', 'm2', 'm2_answer']);
    const second = await reads.messages({ limit: 4, cursor: first.nextCursor }, 'current');
    expect(second.data.map((message) => message.id)).toEqual(['m3', 'm3_answer']);
    expect(second.nextCursor).toBeNull();
    await expect(reads.messages({ limit: 4, cursor: 'not-a-cursor' }, 'current')).rejects.toMatchObject({
      code: 'invalid_cursor',
    });
  });

  it("finds one message and reads an answer's tool-call arguments in clear", async () => {
    const reads = new IncognitoReads(live);
    const message = (await reads.message('m2_answer'))!;
    expect(await reads.toolArguments(message)).toEqual(['{"query":"q"}']);
    expect(await reads.message('unknown')).toBeNull();
    expect((await reads.history()).map((m) => m.id)).toHaveLength(6);
  });

  it('is renamed at once (nothing to wait for), and refuses archiving or a visibility', async () => {
    const writer = new IncognitoWriter(incognito, live);
    expect(await writer.change('cnv_1', 'usr_1', { title: 'renamed' }, context)).toBe(0);
    expect(incognito.find('cnv_1', 'agt_1')!.record.title).toBe('renamed');
    for (const [change, param] of [
      [{ archived: true }, 'archived'],
      [{ visibility: 'private' as const }, 'visibility'],
    ] as const) {
      const refusal = await writer.change('cnv_1', 'usr_1', change, context).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(PlatformError);
      expect(refusal).toMatchObject({ code: 'incognito_conversation', param });
    }
  });

  it('deletes one message (404 message_not_found for an unknown one), then the whole conversation', async () => {
    const writer = new IncognitoWriter(incognito, live);
    expect(await writer.deleteMessage('cnv_1', 'usr_1', 'm1', context)).toBe(0);
    expect(live.messages.map((message) => message.id)).not.toContain('m1');
    await expect(writer.deleteMessage('cnv_1', 'usr_1', 'm1', context)).rejects.toMatchObject({
      code: 'message_not_found',
    });
    expect(await writer.delete()).toBe(0);
    expect(incognito.find('cnv_1', 'agt_1')).toBeNull();
  });
});
