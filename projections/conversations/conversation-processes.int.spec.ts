// The Conversations process managers over real stores: the SQLite event and read stores, the SQLite key store on
// disk, and the command bus routing to the real handlers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '#kernel';
import { AggregateRepository, ProjectionRunner, processLeaseOwner } from '#eventsourcing';
import { ContentCipher } from '#key-store';
import { SqliteKeyStore } from '#key-store/sqlite/sqlite-key-store';
import { inMemoryStores, makeEvent, waitUntil } from '#testing/fixtures';
import { directCommandBus } from '#testing/direct-command-bus';
import { AGENT_DEFAULTS } from '#agents/agent.decider';
import { agentStreamId } from '#agents';
import {
  AgentConversationsDeletionProcess,
  CONVERSATION_MESSAGES,
  CONVERSATIONS,
  ConversationErasureProcess,
  conversationStreamId,
} from '#conversations';
import { ConversationRepository } from '#conversations/conversation.repository';
import {
  DeleteAgentConversation,
  DeleteAgentConversationHandler,
} from '#conversations/commands/delete-conversation/delete-conversation.command';
import { conversationsProjector } from './conversations.projector.js';

describe('Conversations process managers', () => {
  let dir: string;
  let keys: SqliteKeyStore;
  let cipher: ContentCipher;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'conversation-processes-'));
    keys = new SqliteKeyStore({ path: join(dir, 'keys.db') });
    cipher = new ContentCipher(keys);
  });
  afterEach(async () => {
    await keys.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Appends a started conversation with one sealed user message; returns the sealed texts. */
  const startConversation = async (
    events: ReturnType<typeof inMemoryStores>['events'],
    conversationId: string,
    agentId: string,
    userId = 'u1',
  ) => {
    const messageId = `${conversationId}-m1`;
    const title = await cipher.seal(conversationId, conversationId, `title of ${conversationId}`);
    const content = await cipher.seal(messageId, conversationId, `hello from ${conversationId}`);
    await events.appendToStream(
      conversationStreamId(conversationId),
      [
        makeEvent('ConversationStarted', {
          conversationId,
          agentId,
          userId,
          apiKeyId: 'k1',
          visibility: 'normal',
          title,
        }),
        makeEvent('UserMessagePosted', { conversationId, messageId, content, attachments: [] }),
      ],
      'no_stream',
    );
    return { title, content };
  };

  const agentCreated = (agentId: string) =>
    makeEvent('AgentCreated', {
      agentId,
      spaceId: 's1',
      isPersonal: false,
      ownerUserId: null,
      ...AGENT_DEFAULTS,
      name: agentId,
      model: 'm',
    });

  it("deletes an Agent's conversations (and one started on it afterwards) once; a replay appends nothing", async () => {
    const { events, reads } = inMemoryStores();
    const config = loadConfig({});
    const commands = new AggregateRepository(events, config);
    const handler = new DeleteAgentConversationHandler(new ConversationRepository(commands, cipher, keys));
    const sent: DeleteAgentConversation[] = [];
    const processes = [
      conversationsProjector,
      new AgentConversationsDeletionProcess(
        directCommandBus([
          DeleteAgentConversation,
          { execute: (command: DeleteAgentConversation) => (sent.push(command), handler.execute(command)) },
        ]),
      ),
      new ConversationErasureProcess(keys),
    ];
    const runner = new ProjectionRunner(events, reads, processes, { owner: processLeaseOwner('t') });
    runner.start();

    for (const agentId of ['a1', 'a2'])
      await events.appendToStream(agentStreamId(agentId), [agentCreated(agentId)], 'no_stream');
    const c1 = await startConversation(events, 'c1', 'a1', 'u1');
    const c2 = await startConversation(events, 'c2', 'a1', 'u2');
    const c3 = await startConversation(events, 'c3', 'a2', 'u1');
    const conversations = reads.reader(CONVERSATIONS);
    await waitUntil(async () => (await conversations.count()) === 3, 5000);

    await events.appendToStream(
      agentStreamId('a1'),
      [makeEvent('AgentDeleted', { agentId: 'a1', reason: 'requested' })],
      0,
    );
    // A turn that raced the deletion (its Agent check passed before the delete landed).
    const late = await startConversation(events, 'late', 'a1', 'u1');

    const streamTypes = async (conversationId: string) =>
      (await events.readStream(conversationStreamId(conversationId))).map((e) => e.type);
    await waitUntil(async () => {
      for (const id of ['c1', 'c2', 'late'])
        if ((await streamTypes(id)).at(-1) !== 'ConversationDeleted') return false;
      return (await conversations.count()) === 1;
    }, 5000);
    for (const id of ['c1', 'c2', 'late']) {
      const stream = await events.readStream(conversationStreamId(id));
      expect(stream.map((e) => e.type)).toEqual([
        'ConversationStarted',
        'UserMessagePosted',
        'ConversationDeleted',
      ]);
      expect(stream[2]!.data).toMatchObject({ conversationId: id, reason: 'agent_deleted' });
      expect(stream[2]!.metadata).toMatchObject({
        actor: { kind: 'system' },
        causationId: expect.any(String),
      });
    }
    expect(await streamTypes('c3')).toEqual(['ConversationStarted', 'UserMessagePosted']);
    expect((await conversations.find()).data.map((c) => c.id)).toEqual(['c3']);
    await waitUntil(async () => (await reads.reader(CONVERSATION_MESSAGES).count()) === 1, 5000);

    // Their texts are unreadable: the keys of each deleted conversation's group are gone, the others' are not.
    for (const sealed of [c1, c2, late])
      expect(await cipher.openMany([sealed.title, sealed.content])).toEqual([null, null]);
    expect(await cipher.open(c3.content)).toBe('hello from c3');
    // The process acts as the platform, named, and never as a user.
    expect(sent.map((command) => command.principal)).toEqual(
      sent.map(() => ({ kind: 'platform', process: 'agent-conversations-deletion-process' })),
    );
    expect(new Set(sent.map((command) => command.conversationId))).toEqual(new Set(['c1', 'c2', 'late']));

    // Rebuilding the process manager replays AgentDeleted and every ConversationStarted: the derived event ids
    // make its commands no-ops.
    const head = await events.headPosition();
    await reads.saveProjection({ name: 'agent-conversations-deletion-process', rebuildRequested: true });
    await waitUntil(
      async () => (await reads.projection('agent-conversations-deletion-process'))?.liveGeneration === 2,
      5000,
    );
    expect(await events.headPosition()).toBe(head);
    expect(await streamTypes('c3')).toEqual(['ConversationStarted', 'UserMessagePosted']);
    await runner.stop();
  });

  it('destroys the key of a deleted message, of a discarded checkpoint, and the whole group of a deleted conversation', async () => {
    const { events, reads } = inMemoryStores();
    const runner = new ProjectionRunner(
      events,
      reads,
      [conversationsProjector, new ConversationErasureProcess(keys)],
      {
        owner: processLeaseOwner('t'),
      },
    );
    runner.start();

    const { title, content: first } = await startConversation(events, 'c1', 'a1');
    const second = await cipher.seal('c1-m2', 'c1', 'the second message');
    const summary = await cipher.seal('cp1', 'c1', 'a summary of the first message');
    await events.appendToStream(
      conversationStreamId('c1'),
      [
        makeEvent('UserMessagePosted', {
          conversationId: 'c1',
          messageId: 'c1-m2',
          content: second,
          attachments: [],
        }),
        makeEvent('ConversationCompacted', {
          conversationId: 'c1',
          checkpointId: 'cp1',
          throughMessageId: 'c1-m1',
          throughOffset: 1,
          summary,
          tokensBefore: 100,
          tokensAfter: 10,
          model: 'm',
        }),
      ],
      1,
    );
    expect(await cipher.openMany([title, first, second, summary])).toEqual([
      'title of c1',
      'hello from c1',
      'the second message',
      'a summary of the first message',
    ]);

    // Only the log says so (the request that would destroy the keys at once is not running): the process does it.
    await events.appendToStream(
      conversationStreamId('c1'),
      [
        makeEvent('MessageDeleted', { conversationId: 'c1', messageId: 'c1-m1' }),
        makeEvent('CheckpointDiscarded', {
          conversationId: 'c1',
          checkpointId: 'cp1',
          reason: 'message_deleted',
        }),
      ],
      3,
    );
    await waitUntil(async () => (await cipher.open(first)) === null, 5000);
    await waitUntil(async () => (await cipher.open(summary)) === null, 5000);
    expect(await cipher.openMany([title, second])).toEqual(['title of c1', 'the second message']);

    await events.appendToStream(
      conversationStreamId('c1'),
      [makeEvent('ConversationDeleted', { conversationId: 'c1', reason: 'requested' })],
      5,
    );
    await waitUntil(async () => (await cipher.open(second)) === null, 5000);
    expect(await cipher.open(title)).toBeNull();

    // Another connection to the key store's file finds none of the conversation's keys.
    const reopened = new SqliteKeyStore({ path: join(dir, 'keys.db') });
    expect((await reopened.getMany(['c1', 'c1-m1', 'c1-m2', 'cp1'])).size).toBe(0);
    await reopened.close();
    await runner.stop();
  });
});
