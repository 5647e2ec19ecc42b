// The memory's part of the offline chat model: it answers a memory extraction request (`memory-extraction.ts`) with
// the candidates JSON of the turn (`offline-memory.ts`), and it answers a question from the memories the turn
// recalled (the memories block, `memories-block.ts`): the one sharing the most words with the question, added to
// what the sources said when they answered, else on its own.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  contentWords,
  lastUserMessage,
  sharedWords,
  textOf,
  type OfflineReply,
  type OfflineResponder,
} from '#model-providers/offline-kit';
import { MEMORIES_HEADER, parseMemories } from '../memories-block.js';
import { MEMORY_EXTRACTION_HEADER } from '../memory-extraction.js';
import { offlineMemoryReply } from './offline-memory.js';

type Messages = readonly ChatCompletionMessageParam[];

export const OFFLINE_REMEMBERED_PREFIX =
  'Offline stand-in answer (no language model was called), from memory: ';
/** Joins what the sources say and what is remembered, when both answer. */
export const ALSO_REMEMBERED = ' I also remember: ';

/** The recalled memory that shares the most with the question (the earliest of equals), or null when none does. */
export const rememberedAnswer = (question: string, memories: readonly string[]): string | null => {
  const words = contentWords(question);
  let best: string | null = null;
  let bestScore = 0;
  for (const memory of memories) {
    const score = sharedWords(words, memory);
    if (score > bestScore) [best, bestScore] = [memory, score];
  }
  return best;
};

/** The memories the turn recalled (the last memories block of the system messages). */
const turnMemories = (messages: Messages): string[] => {
  const block = messages.findLast(
    (message) =>
      (message.role === 'system' || message.role === 'developer') &&
      textOf(message.content).startsWith(MEMORIES_HEADER),
  );
  return block ? parseMemories(textOf(block.content)).map((memory) => memory.text) : [];
};

/**
 * The answer to a memory extraction request (its first system message starts with the extraction header): the
 * candidates JSON of the turn in its last user message; undefined for any other request.
 */
const extractionAnswer = (messages: Messages): string | undefined => {
  const system = messages.find((message) => message.role === 'system' || message.role === 'developer');
  if (!system || !textOf(system.content).trimStart().startsWith(MEMORY_EXTRACTION_HEADER)) return undefined;
  return offlineMemoryReply(textOf(lastUserMessage(messages)?.content));
};

const remembered = (text: string): OfflineReply => ({
  text: `${OFFLINE_REMEMBERED_PREFIX}${text}`,
  found: true,
});

export const memoryOfflineResponder: OfflineResponder = {
  name: 'memory',
  answer: extractionAnswer,
  reply: (messages, before) => {
    const question = lastUserMessage(messages);
    const recalled = question ? rememberedAnswer(textOf(question.content), turnMemories(messages)) : null;
    const known = before();
    if (known) {
      if (!recalled) return known;
      return known.found
        ? { text: `${known.text}${ALSO_REMEMBERED}${recalled}`, found: true }
        : remembered(recalled);
    }
    return recalled ? remembered(recalled) : undefined;
  },
};
