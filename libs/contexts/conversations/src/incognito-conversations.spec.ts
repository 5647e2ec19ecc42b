// Incognito conversations' memory bound: every byte of text they hold is counted (messages, attachments' extracted
// text, answers, summaries), a user past their share is refused with nothing kept, and past the total the least
// recently used idle conversations of other users are forgotten first.
import { loadConfig, PlatformError } from '#kernel';
import type { NewAnswer, PlainAttachment } from './conversation-records.js';
import {
  IncognitoConversations,
  IncognitoLimitError,
  type IncognitoConversation,
} from './incognito-conversations.js';

/** The person a conversation is looked up for (the policy's `user.own`: their own). */

const KB = 1024;

const store = (perUser: number, total: number) =>
  new IncognitoConversations(
    loadConfig({
      INCOGNITO_MAX_BYTES_PER_USER: String(perUser),
      INCOGNITO_MAX_BYTES: String(total),
      INCOGNITO_IDLE_MINUTES: '30',
    }),
  );

let ids = 0;
const open = (
  incognito: IncognitoConversations,
  userId: string,
  id = `cnv_${++ids}`,
): IncognitoConversation => {
  incognito.start(id, 'agt_1', userId, 'title', new Date());
  return incognito.find(id, 'agt_1')!;
};

const attachment = (chars: number): PlainAttachment => ({
  documentId: null,
  name: 'a.txt',
  mimeType: 'text/plain',
  sizeBytes: chars,
  text: 'x'.repeat(chars),
});

const answer = (replyTo: string, content: string): NewAnswer => ({
  messageId: `msg_answer_${replyTo}`,
  replyTo,
  content,
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
    toolCalls: [],
    steps: 1,
    checkpointId: null,
    contextProviders: [],
  },
});

/** A user message of `chars` characters of text and an attachment of `attached` characters, then its answer. */
const turn = (
  incognito: IncognitoConversations,
  conversation: IncognitoConversation,
  chars: number,
  attached = 0,
) => {
  const id = `msg_${++ids}`;
  incognito.postUserMessage(
    conversation,
    id,
    'q'.repeat(chars),
    attached > 0 ? [attachment(attached)] : [],
    new Date(),
  );
  incognito.recordAnswer(conversation, answer(id, 'ok'), new Date());
};

describe('IncognitoConversations memory bound', () => {
  let incognito: IncognitoConversations;
  afterEach(() => incognito.onModuleDestroy());

  it("counts message text, attachments' extracted text, answers and summaries, and gives them back", () => {
    incognito = store(1024 * KB, 4096 * KB);
    const conversation = open(incognito, 'usr_a');
    turn(incognito, conversation, 10 * KB, 100 * KB);
    const afterTurn = incognito.held('usr_a');
    // The question, the attachment's text and name, the answer and its provenance.
    expect(afterTurn).toBeGreaterThan(110 * KB);
    expect(afterTurn).toBeLessThan(112 * KB);
    expect(incognito.held()).toBe(afterTurn);

    incognito.compact(conversation, {
      checkpointId: 'ckp_1',
      throughMessageId: conversation.messages[0]!.id,
      throughOffset: 10 * KB,
      summary: 's'.repeat(5 * KB),
      tokensBefore: 1,
      tokensAfter: 1,
      model: 'offline-chat',
    });
    expect(incognito.held('usr_a')).toBe(afterTurn + 5 * KB);

    // Deleting the summarised message drops the checkpoint too: both are given back.
    incognito.deleteMessage(conversation, conversation.messages[0]!.id);
    expect(incognito.held('usr_a')).toBeLessThan(2 * KB);
    incognito.delete(conversation.record.id);
    expect(incognito.held('usr_a')).toBe(0);
    expect(incognito.held()).toBe(0);
  });

  it('refuses a message past its user’s share with a clear 429, keeping nothing of it', () => {
    incognito = store(300 * KB, 4096 * KB);
    const first = open(incognito, 'usr_a');
    turn(incognito, first, KB, 200 * KB);
    const held = incognito.held('usr_a');

    const second = open(incognito, 'usr_a');
    let refused: unknown;
    try {
      incognito.postUserMessage(second, 'msg_over', 'q', [attachment(200 * KB)], new Date());
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(IncognitoLimitError);
    expect(refused).toBeInstanceOf(PlatformError);
    expect(refused).toMatchObject({ kind: 'rate_limited', code: 'incognito_limit_exceeded' });
    expect((refused as Error).message).toMatch(/past the 0\.3 MB/);
    // Nothing half-written: not the message, nor the conversation it would have started; the first is untouched.
    expect(incognito.has(second.record.id)).toBe(false);
    expect(incognito.held('usr_a')).toBe(held);
    expect(incognito.find(first.record.id, 'agt_1')?.messages).toHaveLength(2);

    // Another user is not affected by usr_a's share.
    turn(incognito, open(incognito, 'usr_b'), KB, 200 * KB);
    expect(incognito.held('usr_b')).toBeGreaterThan(200 * KB);
  });

  it('past the total, forgets the least recently used idle conversations of other users first', () => {
    incognito = store(1024 * KB, 1024 * KB);
    const oldest = open(incognito, 'usr_a');
    turn(incognito, oldest, KB, 300 * KB);
    const busy = open(incognito, 'usr_b');
    // A turn under way (its answer not yet recorded): not idle, never forgotten to make room.
    incognito.postUserMessage(busy, 'msg_busy', 'q', [attachment(300 * KB)], new Date());
    const recent = open(incognito, 'usr_a');
    turn(incognito, recent, KB, 300 * KB);
    const own = open(incognito, 'usr_c');
    turn(incognito, own, KB, 50 * KB);

    // usr_c needs room: usr_a's oldest idle conversation goes, the busy one and usr_c's own stay.
    turn(incognito, open(incognito, 'usr_c'), KB, 300 * KB);
    expect(incognito.has(oldest.record.id)).toBe(false);
    expect(incognito.has(busy.record.id)).toBe(true);
    expect(incognito.has(recent.record.id)).toBe(true);
    expect(incognito.has(own.record.id)).toBe(true);
    expect(incognito.held()).toBeLessThanOrEqual(1024 * KB);
    expect(incognito.held('usr_a')).toBeLessThan(320 * KB);

    // When only busy conversations and the caller's own remain, the message is refused instead.
    incognito.delete(recent.record.id);
    const filler = open(incognito, 'usr_c');
    turn(incognito, filler, KB, 250 * KB);
    const refusedIn = open(incognito, 'usr_c');
    expect(() =>
      incognito.postUserMessage(refusedIn, 'msg_full', 'q', [attachment(300 * KB)], new Date()),
    ).toThrow(/hold as much as they may \(1\.0 MB\)/);
    expect(incognito.has(refusedIn.record.id)).toBe(false);
    expect(incognito.has(busy.record.id)).toBe(true);
    expect(incognito.held()).toBeLessThanOrEqual(1024 * KB);
  });

  it('never counts bytes of a conversation forgotten while its turn was being prepared', () => {
    incognito = store(1024 * KB, 4096 * KB);
    const used = open(incognito, 'usr_a');
    turn(incognito, used, KB);
    const fresh = open(incognito, 'usr_a');
    // Both are forgotten (as idle expiry or making room would) after the turn found them, before its message is kept.
    incognito.delete(used.record.id);
    incognito.delete(fresh.record.id);
    expect(() => incognito.postUserMessage(used, 'msg_late', 'q', [], new Date())).toThrow(
      expect.objectContaining({ code: 'conversation_not_found' }),
    );
    expect(incognito.held('usr_a')).toBe(0);
    // A conversation this turn started is simply held again, and counted.
    incognito.postUserMessage(fresh, 'msg_new', 'q'.repeat(KB), [], new Date());
    expect(incognito.has(fresh.record.id)).toBe(true);
    expect(incognito.held('usr_a')).toBe(KB);
  });

  it('stays within the caps over 60 turns with big attachments, forgetting idle ones as it goes', () => {
    incognito = store(2048 * KB, 8192 * KB);
    let refused = 0;
    for (let index = 0; index < 60; index++) {
      const user = `usr_${index % 6}`;
      try {
        turn(incognito, open(incognito, user), 100, 200_000);
      } catch (error) {
        if (!(error instanceof IncognitoLimitError)) throw error;
        refused++;
      }
      expect(incognito.held()).toBeLessThanOrEqual(8192 * KB);
      for (let u = 0; u < 6; u++) expect(incognito.held(`usr_${u}`)).toBeLessThanOrEqual(2048 * KB);
    }
    // 6 users × 10 turns of ~0.2 MB: each user's share (2 MB) holds 10, the total (8 MB) about 40, so the oldest idle
    // conversations of the others were forgotten and nobody was refused.
    expect(refused).toBe(0);
  });
});
