// The prompt of a turn, in the order the design sets: the Agent's system prompt, each context provider's section
// (Knowledge's numbered sources first), the summary of the compacted history, then the history the model still sees
// verbatim and the new message (attachments as text after it). Compaction is planned here against the budget left
// once the fixed sections are counted.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  modelView,
  type Checkpoint,
  type HistoryMessage,
  type ViewMessage,
} from '../compaction/compaction-boundary.js';
import { PrefixMemo } from '../compaction/prefix-memo.js';
import type { PlainMessage } from '../conversation-records.js';

export const SUMMARY_HEADER = 'Summary of the earlier part of this conversation:';

/**
 * Each opened message's history form, made once: a long conversation's turn gets the messages it served before as the
 * same objects (opened-history.ts), so it gets the same history messages, whose token counts are remembered
 * (history-pool.ts). Weak: a message the reader no longer keeps is collected with its form.
 */
const historyForms = new WeakMap<PlainMessage, HistoryMessage>();

const historyForm = (message: PlainMessage, text: string): HistoryMessage => {
  let form = historyForms.get(message);
  if (!form) {
    form = {
      id: message.id,
      role: message.role,
      text,
      attachments: message.attachments.map((attachment) => ({
        name: attachment.name,
        text: attachment.text,
      })),
    };
    historyForms.set(message, form);
  }
  return form;
};

/** The last history's forms, one per message (null: unreadable), reused for the same messages by identity. */
const histories = new PrefixMemo<PlainMessage, HistoryMessage | null>();

/** The history as the compaction functions read it (deleted and unreadable messages are simply absent). */
export const toHistory = (messages: readonly PlainMessage[]): HistoryMessage[] =>
  histories
    .map(messages, (message) => (message.content === null ? null : historyForm(message, message.content)))
    .filter((form) => form !== null);

/** Each history message as the model reads it, made once (as `historyForms`): a message whole, attachments after it. */
const promptForms = new WeakMap<ViewMessage, ChatCompletionMessageParam>();

const promptForm = (message: ViewMessage): ChatCompletionMessageParam => {
  let form = promptForms.get(message);
  if (!form) {
    const attachments = message.attachments
      .map(
        (attachment) => `Attachment '${attachment.name}':\n${attachment.text ?? '(no text could be read)'}`,
      )
      .join('\n\n');
    const content = attachments ? `${message.text}\n\n${attachments}` : message.text;
    // Frozen: the transport serialises a frozen message once (openai/request-body.ts), not at every turn.
    form = Object.freeze(
      message.role === 'user' ? { role: 'user', content } : { role: 'assistant', content },
    );
    promptForms.set(message, form);
  }
  return form;
};

/** The last prompt's forms, reused for the same view messages by identity. */
const prompts = new PrefixMemo<ViewMessage, ChatCompletionMessageParam>();

export function promptMessages(
  systemSections: readonly string[],
  history: readonly HistoryMessage[],
  checkpoint: Checkpoint | null,
): ChatCompletionMessageParam[] {
  const view = modelView(history, checkpoint);
  const messages: ChatCompletionMessageParam[] = systemSections
    .filter((section) => section.trim().length > 0)
    .map((content) => ({ role: 'system', content }));
  if (view.summary !== null) messages.push({ role: 'system', content: `${SUMMARY_HEADER}\n${view.summary}` });
  for (const form of prompts.map(view.messages, promptForm)) messages.push(form);
  return messages;
}

/** Tokens sectionTokens adds to each section for its message framing. */
const SECTION_FRAMING = 4;

/** At least what sectionTokens counts for the sections (a token is at least one byte): their bytes, with framing. */
export function sectionsBound(sections: readonly string[]): number {
  let bytes = 0;
  for (const section of sections) bytes += Buffer.byteLength(section, 'utf8') + SECTION_FRAMING;
  return bytes;
}

/**
 * True when the prompt surely fits `budget` without compaction, known from its UTF-8 bytes alone: a token covers at
 * least one byte, so the sections' bytes (with their framing) and the history's bytes bound what sectionTokens and
 * the compaction plan would count. Only without a checkpoint (a summarised view adds text of its own). When true the
 * counts are not needed: the plan would find the history fits the budget left beside the sections. Counting a
 * turn's sections (system prompt, sources block) with the BPE encoder took a few milliseconds of each turn.
 */
export function fitsWithoutCounting(
  sections: readonly string[],
  history: readonly HistoryMessage[],
  checkpoint: Checkpoint | null,
  budget: number,
): boolean {
  if (checkpoint !== null) return false;
  let bytes = sectionsBound(sections);
  for (const message of history) {
    bytes += Buffer.byteLength(message.text, 'utf8');
    for (const attachment of message.attachments) bytes += Buffer.byteLength(attachment.text ?? '', 'utf8');
    if (bytes > budget) return false;
  }
  return bytes <= budget;
}

export const SUMMARY_INSTRUCTIONS =
  'Summarise the earlier part of a conversation for the assistant who continues it. Keep every fact, name, ' +
  'number, decision, preference and open question; drop pleasantries. Write in the language of the conversation, ' +
  'as compact notes.';

/** Tokens of a model's window kept free for the answer. */
const ANSWER_RESERVE = 0.25;

/** Tokens a turn's prompt may take: the Agent's budget (or the default), at most 75% of the model's window. */
export const promptBudget = (
  agentBudget: number | null | undefined,
  fallback: number,
  contextWindow: number,
) => Math.max(256, Math.min(agentBudget ?? fallback, Math.floor(contextWindow * (1 - ANSWER_RESERVE))));
