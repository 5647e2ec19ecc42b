// The turn's writes through the ConversationRepository, over a real event store and a real key store on disk: a turn
// obtains its data keys in one key-store write (the title's, the message's and the answer's, each filed under the
// conversation), and recording the answer creates no key of its own, so a turn pays one durable key commit.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
import { loadConfig, SYSTEM_ACTOR } from '#kernel';
import { ContentCipher, openKeyStore, type KeyStore } from '#key-store';
import { ConversationRepository } from './conversation.repository.js';
import { conversationStreamId } from './conversation.events.js';
import type { NewAnswer } from './conversation-records.js';

const context: CommandContext = { actor: SYSTEM_ACTOR, correlationId: 'corr_1', now: () => new Date() };

const answer = (messageId: string, replyTo: string): NewAnswer => ({
  messageId,
  replyTo,
  content: 'The answer [1].',
  citations: [],
  status: 'complete',
  finishReason: 'stop',
  usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 5 },
  provenance: {
    model: 'offline-chat',
    provider: 'offline',
    sampling: { temperature: null, topP: null, topK: null },
    agentRevision: 0,
    systemPromptSha256: 'abc',
    sources: [],
    toolCalls: [{ name: 'search', arguments: '{"q":"x"}', ok: true, sources: [] }],
    steps: 2,
    checkpointId: null,
    contextProviders: [],
  },
});

/** A citation with the cluster summary the answer was given (an Agent with includeAiSummary). */
const CITED = {
  index: 1,
  documentId: 'doc_1',
  documentName: 'a.txt',
  documentVersion: 1,
  contentHash: 'sha256-x',
  sectionPath: ['A'],
  start: 0,
  end: 3,
  score: 0.9,
  summary: { nodeId: 'node_1', level: 1, text: 'The documents speak of the alphabet.' },
};

describe('ConversationRepository: a turn’s data keys', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conv-repo-'));
  const events = new SqliteEventStore({ path: ':memory:' });
  const config = loadConfig({ DATA_DIR: dir });
  let store: KeyStore;
  beforeAll(async () => {
    store = await openKeyStore(config);
  });
  const calls: string[] = [];
  const watched: KeyStore = {
    obtain: (keyId, group) => (calls.push(`obtain ${keyId}`), store.obtain(keyId, group)),
    obtainMany: (wanted) => (
      calls.push(`obtainMany ${wanted.map((each) => each.keyId).join(',')}`),
      store.obtainMany(wanted)
    ),
    getMany: (keyIds) => store.getMany(keyIds),
    destroy: (keyId) => store.destroy(keyId),
    destroyGroup: (group) => store.destroyGroup(group),
    close: () => store.close(),
  };
  const cipher = new ContentCipher(watched);
  const repository = new ConversationRepository(new AggregateRepository(events, config), cipher, watched);
  afterAll(async () => {
    await events.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('obtains the title’s, the message’s and the answer’s keys in one call; the answer then creates none', async () => {
    const turn = {
      conversationId: 'conv_1',
      agentId: 'agt_1',
      userId: 'usr_1',
      start: { apiKeyId: 'key_1', visibility: 'normal' as const, title: 'Hello' },
      messageId: 'msg_q1',
      answerId: 'msg_a1',
      content: 'Hello there',
      attachments: [
        { documentId: 'doc_1', name: 'a.txt', mimeType: 'text/plain', sizeBytes: 3, text: 'abc' },
      ],
    };
    await repository.startTurn(turn, context);
    expect(calls).toEqual(['obtainMany conv_1,msg_q1,msg_a1']);
    // The answer's key exists before the answer does, filed under the conversation.
    expect([...(await store.getMany(['msg_a1'])).keys()]).toEqual(['msg_a1']);

    calls.length = 0;
    await repository.recordAnswer('conv_1', { ...answer('msg_a1', 'msg_q1'), citations: [CITED] }, context);
    expect(calls).toEqual(['obtainMany msg_a1']);

    // Everything sealed opens with the keys the turn obtained; deleting the conversation erases all three.
    const [started, posted, recorded] = await events.readStream(conversationStreamId('conv_1'));
    const data = (event: typeof started) => event!.data as Record<string, never>;
    const sealed = [
      data(started).title,
      data(posted).content,
      (data(posted).attachments as { name: string; text: string }[])[0]!.name,
      (data(posted).attachments as { name: string; text: string }[])[0]!.text,
      data(recorded).content,
      (data(recorded).provenance as { toolCalls: { arguments: string }[] }).toolCalls[0]!.arguments,
      (data(recorded).citations as (typeof CITED)[])[0]!.summary.text,
    ];
    // The citation's summary is kept with the answer, its text sealed (never in the log in clear).
    expect((data(recorded).citations as (typeof CITED)[])[0]).toEqual({
      ...CITED,
      summary: { nodeId: 'node_1', level: 1, text: expect.not.stringContaining('alphabet') },
    });
    expect(await cipher.openMany(sealed)).toEqual([
      'Hello',
      'Hello there',
      'a.txt',
      'abc',
      'The answer [1].',
      '{"q":"x"}',
      'The documents speak of the alphabet.',
    ]);
    expect(await store.destroyGroup('conv_1')).toBe(3);
    expect(await cipher.openMany(sealed)).toEqual(sealed.map(() => null));
  });

  it('obtains only the message’s and the answer’s keys on a later turn', async () => {
    const base = {
      conversationId: 'conv_2',
      agentId: 'agt_1',
      userId: 'usr_1',
      content: 'q',
      attachments: [],
    };
    await repository.startTurn(
      {
        ...base,
        start: { apiKeyId: 'key_1', visibility: 'normal', title: 't' },
        messageId: 'msg_q1',
        answerId: 'msg_a1',
      },
      context,
    );
    calls.length = 0;
    await repository.startTurn({ ...base, start: null, messageId: 'msg_q2', answerId: 'msg_a2' }, context);
    expect(calls).toEqual(['obtainMany msg_q2,msg_a2']);
  });

  it('commits a message’s keys at once and appends it only once the turn’s context is gathered', async () => {
    let gathered!: () => void;
    const appendAfter = new Promise<void>((resolve) => (gathered = resolve));
    const posting = repository.startTurn(
      {
        conversationId: 'conv_3',
        agentId: 'agt_1',
        userId: 'usr_1',
        start: { apiKeyId: 'key_1', visibility: 'normal', title: 't' },
        messageId: 'msg_q1',
        answerId: 'msg_a1',
        content: 'q',
        attachments: [],
        appendAfter,
      },
      context,
    );
    const stream = conversationStreamId('conv_3');
    for (let i = 0; i < 50 && (await store.getMany(['msg_a1'])).size === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect([...(await store.getMany(['conv_3', 'msg_q1', 'msg_a1'])).keys()].sort()).toEqual([
      'conv_3',
      'msg_a1',
      'msg_q1',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await events.readStream(stream)).toEqual([]);
    gathered();
    expect(await posting).toBeGreaterThan(0);
    expect((await events.readStream(stream)).map((event) => event.type)).toEqual([
      'ConversationStarted',
      'UserMessagePosted',
    ]);
  });
});
