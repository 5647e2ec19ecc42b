// The recorded turns a replay reads from the log: which answers a selection names (one pass over the log), the
// prompt a turn was given rebuilt from its conversation's events (its system sections, the compacted summary, the
// history before the question, opened with their keys: erased messages are absent), and a recorded passage's text.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { EventEnvelope } from '#kernel';
import type { EventStore } from '#event-store';
import type { BlobStore } from '#blob-store';
import type { ContentCipher } from '#key-store';
import { documentStreamId } from '#knowledge';
import type { Citation, ConversationEvent, RetrievedSource } from '#conversations';
import type { ReplaySelection } from './replay-report.types.js';

const READ_BATCH = 1000;
/**
 * The header of a compacted history's summary, as the turn writes it (`SUMMARY_HEADER` of the conversations runtime's
 * turn-prompt.ts, not exported from its index while that runtime is being reworked).
 */
const SUMMARY_HEADER = 'Summary of the earlier part of this conversation:';
export type Envelope<T extends ConversationEvent['type']> = EventEnvelope<
  T,
  Extract<ConversationEvent, { type: T }>['data']
>;
export type Recorded = Envelope<'AssistantMessageRecorded'>;

/** A passage the replayed turn's prompt holds: recorded (its text read back), or found by searching again. */
export type PassageSource = RetrievedSource;

/** The recorded answers the selection names, oldest first: one pass over the log. */
export async function selectRecordedTurns(
  store: EventStore,
  selection: ReplaySelection,
): Promise<Recorded[]> {
  const agentOf = new Map<string, string>();
  const ids = selection.messageIds ? new Set(selection.messageIds) : null;
  const from = selection.from ? Date.parse(selection.from) : -Infinity;
  const to = selection.to ? Date.parse(selection.to) : Infinity;
  const found: Recorded[] = [];
  let after: number | undefined;
  for (;;) {
    const batch = await store.readAll({ after, maxCount: READ_BATCH });
    for (const event of batch) {
      if (event.type === 'ConversationStarted') {
        const data = event.data as Envelope<'ConversationStarted'>['data'];
        agentOf.set(data.conversationId, data.agentId);
      } else if (event.type === 'AssistantMessageRecorded') {
        const recorded = event as unknown as Recorded;
        const at = Date.parse(recorded.metadata.occurredAt);
        if (ids && !ids.has(recorded.data.messageId)) continue;
        if (selection.agentId && agentOf.get(recorded.data.conversationId) !== selection.agentId) continue;
        if (at < from || at > to) continue;
        found.push(recorded);
      }
    }
    if (batch.length < READ_BATCH) break;
    after = batch.at(-1)!.position;
  }
  return selection.limit === undefined ? found : found.slice(0, selection.limit);
}

/**
 * The prompt as the turn built it: its system sections (the Agent's prompt, then each context provider's, in the
 * providers' order), the summary, then the history and the question.
 */
export async function recordedPrompt(
  cipher: ContentCipher,
  events: readonly EventEnvelope[],
  question: Envelope<'UserMessagePosted'>,
  sections: readonly string[],
  checkpointId: string | null,
  questionText: string,
): Promise<ChatCompletionMessageParam[]> {
  const before = events.slice(0, events.indexOf(question as unknown as EventEnvelope));
  const compacted = checkpointId
    ? (before.find(
        (event) =>
          event.type === 'ConversationCompacted' &&
          (event.data as { checkpointId: string }).checkpointId === checkpointId,
      ) as Envelope<'ConversationCompacted'> | undefined)
    : undefined;
  let history = before.filter(
    (event) => event.type === 'UserMessagePosted' || event.type === 'AssistantMessageRecorded',
  );
  if (compacted) {
    const through = history.findIndex(
      (event) => (event.data as { messageId: string }).messageId === compacted.data.throughMessageId,
    );
    history = history.slice(through + 1);
  }
  const messages: ChatCompletionMessageParam[] = sections
    .filter((section) => section.trim().length > 0)
    .map((content) => ({ role: 'system', content }));
  const summary = compacted ? await cipher.open(compacted.data.summary) : null;
  if (summary) messages.push({ role: 'system', content: `${SUMMARY_HEADER}\n${summary}` });
  const texts = await cipher.openMany(history.map((event) => (event.data as { content: string }).content));
  history.forEach((event, i) => {
    const text = texts[i];
    if (text === null || text === undefined) return;
    messages.push(
      event.type === 'UserMessagePosted'
        ? { role: 'user', content: text }
        : { role: 'assistant', content: text },
    );
  });
  messages.push({ role: 'user', content: questionText });
  return messages;
}

/** A recorded passage's text: the cited range of its document version's extracted text (null once purged). */
export async function recordedPassageText(
  store: EventStore,
  blobs: BlobStore,
  source: Citation,
): Promise<string | null> {
  let textBlobId: string | null = null;
  for (const event of await store.readStream(documentStreamId(source.documentId))) {
    const data = event.data as { version?: number; textBlobId?: string };
    if (event.type === 'DocumentReady' && data.version === source.documentVersion)
      textBlobId = data.textBlobId ?? null;
  }
  if (!textBlobId) return null;
  const bytes = await blobs.get(textBlobId);
  return bytes ? bytes.toString('utf8').slice(source.start, source.end) : null;
}
