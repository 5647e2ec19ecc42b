// A long conversation costs what a short one does: over real stores (SQLite event, read and key stores, the real
// projector and command routine), a 1,000-message conversation compacted near its end is read from its checkpoint on
// (the turn's history and the model's view a generate call reads) and a listing page opens only its page. Counted in
// values the cipher opens, not in time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '#kernel';
import { ProjectionRunner, ProjectionWaiter, processLeaseOwner } from '#eventsourcing';
import { AggregateRepository, ReadYourWritesBus } from '#eventsourcing';
import { ContentCipher } from '#key-store';
import { SqliteKeyStore } from '#key-store/sqlite/sqlite-key-store';
import { inMemoryStores, makeEvent, waitUntil } from '#testing/fixtures';
import { directCommandBus } from '#testing/direct-command-bus';
import type { AgentView } from '#agents';
import type { Filter, FindOptions, ReadStore, StoredDocument } from '#read-store';
import { CONVERSATION_MESSAGES, conversationHistory, conversationStreamId } from '#conversations';
import {
  CompactConversation,
  CompactConversationHandler,
} from '#conversations/commands/compact-conversation/compact-conversation.command';
import { ConversationReader } from '#conversations/conversation.reader';
import { ConversationWrites } from '#conversations/conversation-writes';
import { ConversationRepository } from '#conversations/conversation.repository';
import { OpenedHistory } from '#conversations/opened-history';
import { StoredPlace, StoredReads } from '#conversations/runtime/places/stored-place';
import type { Caller } from '#access';
import { conversationsProjector } from './conversations.projector.js';

/** The person a conversation is looked up for (the policy's `user.own`: their own). */

/** The real cipher, counting the sealed values it opens. */
class CountingCipher extends ContentCipher {
  opened = 0;
  override openMany(sealed: readonly (string | null)[]): Promise<(string | null)[]> {
    this.opened += sealed.filter((value) => value !== null).length;
    return super.openMany(sealed);
  }
}

/** The read store, counting the message documents its readers hand out. */
function countingReads(reads: ReadStore): { reads: ReadStore; documents: () => number; reset: () => void } {
  let documents = 0;
  const counted = Object.create(reads) as ReadStore;
  counted.reader = <T extends StoredDocument>(collection: string) => {
    const reader = reads.reader<T>(collection);
    if (collection !== CONVERSATION_MESSAGES) return reader;
    return {
      get: async (id: string) => {
        const doc = await reader.get(id);
        if (doc) documents++;
        return doc;
      },
      find: async (filter?: Filter, options?: FindOptions) => {
        const page = await reader.find(filter, options);
        documents += page.data.length;
        return page;
      },
      count: (filter?: Filter) => reader.count(filter),
    };
  };
  return { reads: counted, documents: () => documents, reset: () => (documents = 0) };
}

const MESSAGES = 1_000;
/** The checkpoint covers messages 1..990: the model's view is the summary and the last ten. */
const THROUGH = 990;

describe('a long conversation reads only its tail', () => {
  let dir: string;
  let keys: SqliteKeyStore;
  let cipher: CountingCipher;
  let runner: ProjectionRunner;
  const { events, reads } = inMemoryStores();
  const config = loadConfig({});

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'long-conversation-'));
    keys = new SqliteKeyStore({ path: join(dir, 'keys.db') });
    cipher = new CountingCipher(keys);
  });
  afterAll(async () => {
    await runner?.stop();
    await keys.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens the checkpoint tail for a turn and a generate call, and one page for a listing', async () => {
    const commands = new AggregateRepository(events, config);
    const repository = new ConversationRepository(commands, cipher, keys);
    const reader = new ConversationReader(cipher, reads);
    runner = new ProjectionRunner(events, reads, [conversationsProjector], { owner: processLeaseOwner('t') });
    runner.start();

    const conversationId = 'cnv_long';
    const id = (n: number) => `msg_${String(n).padStart(4, '0')}`;
    const posted = [];
    for (let n = 1; n <= MESSAGES; n++)
      posted.push(
        makeEvent('UserMessagePosted', {
          conversationId,
          messageId: id(n),
          content: await cipher.seal(id(n), conversationId, `message number ${n}`),
          attachments: [],
        }),
      );
    await events.appendToStream(
      conversationStreamId(conversationId),
      [
        makeEvent('ConversationStarted', {
          conversationId,
          agentId: 'agt_1',
          userId: 'usr_1',
          apiKeyId: 'key_1',
          visibility: 'normal',
          title: await cipher.seal(conversationId, conversationId, 'A long one'),
        }),
        ...posted,
      ],
      'no_stream',
    );
    // The checkpoint goes through the real decider (which folds the stream) and the cipher.
    await new CompactConversationHandler(repository).execute(
      new CompactConversation(
        conversationId,
        {
          checkpointId: 'ckp_1',
          throughMessageId: id(THROUGH),
          throughOffset: `message number ${THROUGH}`.length,
          summary: 'the first 990 messages, summarised',
          tokensBefore: 5_000,
          tokensAfter: 50,
          model: 'fake-chat',
        },
        { actor: { kind: 'user', id: 'usr_1' }, correlationId: 'c', now: () => new Date() },
      ),
    );
    await waitUntil(
      async () => (await reader.find(conversationId, 'agt_1'))?.checkpoint?.summary != null,
      10_000,
    );

    cipher.opened = 0;
    const record = (await reader.find(conversationId, 'agt_1'))!;
    expect(cipher.opened).toBe(2); // the title and the summary

    // A turn's history: the checkpoint's message and the ten after it, nothing before.
    const caller = { userId: 'usr_1', apiKey: { id: 'key_1' } } as unknown as Caller;
    const bus = directCommandBus();
    const buses = {
      bus,
      writes: new ConversationWrites(
        new ReadYourWritesBus(bus, new ProjectionWaiter(reads, null), config, events),
      ),
    };
    const place = new StoredPlace(reader, buses, conversationId, 'agt_1', caller, record, 'normal');
    cipher.opened = 0;
    const history = await place.history();
    expect(history.map((message) => message.id)).toEqual(
      Array.from({ length: MESSAGES - THROUGH + 1 }, (_, i) => id(THROUGH + i)),
    );
    expect(cipher.opened).toBe(MESSAGES - THROUGH + 1);

    // A generate call's model view: the summary and the ten messages after the boundary, read the same way (the turn
    // opened them: none is opened again).
    cipher.opened = 0;
    const view = await conversationHistory({
      agent: { id: 'agt_1' } as AgentView,
      userId: 'usr_1',
      record,
      reads: new StoredReads(reader, record),
      writer: repository,
    });
    expect(cipher.opened).toBe(0);
    expect(view[0]).toEqual({
      role: 'system',
      content: expect.stringContaining('the first 990 messages, summarised') as unknown,
    });
    expect(view.slice(1).map((message) => message.content)).toEqual(
      Array.from({ length: MESSAGES - THROUGH }, (_, i) => `message number ${THROUGH + 1 + i}`),
    );

    // A listing page opens its page only.
    cipher.opened = 0;
    const page = await reader.messages(conversationId, { limit: 200, cursor: null });
    expect(page.data).toHaveLength(200);
    expect(page.data[0]!.id).toBe(id(1));
    expect(cipher.opened).toBe(200);
  }, 60_000);
});

describe('a long conversation without a checkpoint opens only what a turn has not seen', () => {
  let dir: string;
  let keys: SqliteKeyStore;
  let cipher: CountingCipher;
  let runner: ProjectionRunner;
  const { events, reads } = inMemoryStores();
  const config = loadConfig({});
  const conversationId = 'cnv_uncompacted';
  const id = (n: number) => `msg_u${String(n).padStart(4, '0')}`;
  const post = async (from: number, to: number, expected: 'no_stream' | bigint | number) => {
    const posted = [];
    for (let n = from; n <= to; n++)
      posted.push(
        makeEvent('UserMessagePosted', {
          conversationId,
          messageId: id(n),
          content: await cipher.seal(id(n), conversationId, `message number ${n}`),
          attachments: [],
        }),
      );
    const start =
      expected === 'no_stream'
        ? [
            makeEvent('ConversationStarted', {
              conversationId,
              agentId: 'agt_1',
              userId: 'usr_1',
              apiKeyId: 'key_1',
              visibility: 'normal',
              title: await cipher.seal(conversationId, conversationId, 'An uncompacted one'),
            }),
          ]
        : [];
    await events.appendToStream(
      conversationStreamId(conversationId),
      [...start, ...posted],
      expected as never,
    );
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'long-conversation-'));
    keys = new SqliteKeyStore({ path: join(dir, 'keys.db') });
    cipher = new CountingCipher(keys);
  });
  afterAll(async () => {
    await runner?.stop();
    await keys.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads and opens the new messages only on the next turn; a deleted message or a destroyed key is never served', async () => {
    const opened = new OpenedHistory();
    const commands = new AggregateRepository(events, config);
    const repository = new ConversationRepository(commands, cipher, keys, opened);
    const counting = countingReads(reads);
    const reader = new ConversationReader(cipher, counting.reads, opened);
    runner = new ProjectionRunner(events, reads, [conversationsProjector], { owner: processLeaseOwner('t') });
    runner.start();
    const messageCount = async () => (await reader.find(conversationId, 'agt_1'))?.messageCount ?? 0;

    await post(1, MESSAGES, 'no_stream');
    await waitUntil(async () => (await messageCount()) === MESSAGES, 10_000);

    // The first turn reads and opens every message; the next (two messages later: a question and its answer) only
    // the two, and gets the messages it had as the same objects (their token counts are remembered with them).
    cipher.opened = 0;
    counting.reset();
    const first = await reader.history(conversationId);
    expect(first).toHaveLength(MESSAGES);
    expect(cipher.opened).toBe(MESSAGES);
    expect(counting.documents()).toBe(MESSAGES);
    await post(MESSAGES + 1, MESSAGES + 2, MESSAGES);
    await waitUntil(async () => (await messageCount()) === MESSAGES + 2, 10_000);
    cipher.opened = 0;
    counting.reset();
    const history = await reader.history(conversationId);
    expect(cipher.opened).toBe(2);
    expect(counting.documents()).toBe(2);
    expect(history.map((message) => message.content)).toEqual(
      Array.from({ length: MESSAGES + 2 }, (_, i) => `message number ${i + 1}`),
    );
    expect(history.slice(0, MESSAGES).every((message, i) => message === first[i])).toBe(true);
    // What a caller does to the array it got does not change what the next read serves.
    history.length = 0;
    expect(await reader.history(conversationId)).toHaveLength(MESSAGES + 2);

    // A deleted message is not in the next turn's history (its key is destroyed, the read model drops it).
    const context = {
      actor: { kind: 'user' as const, id: 'usr_1' },
      correlationId: 'c',
      now: () => new Date(),
    };
    await repository.deleteMessage(conversationId, 'usr_1', id(500), context);
    await waitUntil(async () => (await reader.message(conversationId, id(500))) === null, 10_000);
    const afterDeletion = await reader.history(conversationId);
    expect(afterDeletion).toHaveLength(MESSAGES + 1);
    expect(afterDeletion.some((message) => message.id === id(500))).toBe(false);
    expect(afterDeletion.some((message) => message.content === 'message number 500')).toBe(false);

    // A key destroyed behind the cache's back (another process, before the read model has caught up): the value is
    // not served from what this process opened before.
    await keys.destroy(id(7));
    const afterDestroy = await reader.history(conversationId);
    expect(afterDestroy.find((message) => message.id === id(7))?.content).toBeNull();
    expect(afterDestroy.some((message) => message.content === 'message number 7')).toBe(false);

    // The same by another process's key store (over the same file): its destruction is counted where all can see it.
    const elsewhere = new SqliteKeyStore({ path: join(dir, 'keys.db') });
    await elsewhere.destroy(id(9));
    await elsewhere.close();
    const afterElsewhere = await reader.history(conversationId);
    expect(afterElsewhere.find((message) => message.id === id(9))?.content).toBeNull();
    expect(afterElsewhere.some((message) => message.content === 'message number 9')).toBe(false);

    // Deleting the conversation forgets it at once.
    expect(opened.size).toBe(1);
    await repository.delete(conversationId, 'usr_1', 'requested', context);
    expect(opened.size).toBe(0);
  }, 60_000);
});
