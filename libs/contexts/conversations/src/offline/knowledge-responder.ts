// The conversation runtime's part of the offline chat model: it reads the sources of a turn back (the grounding
// format: the system message of retrieved passages and the `search_knowledge` results after the last user message)
// and answers from them (`grounded-answer.ts`), and it calls `search_knowledge` only when the user asks to search,
// once a turn.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  currentTurn,
  isToolResult,
  lastUserMessage,
  textOf,
  type OfflineResponder,
} from '#model-providers/offline-kit';
import {
  isSourcesText,
  parseSources,
  SEARCH_KNOWLEDGE_TOOL,
  type PromptSource,
} from '../runtime/grounding.js';
import { groundedAnswer, OFFLINE_GROUNDED_PREFIX, searchQueryOf } from './grounded-answer.js';

type Messages = readonly ChatCompletionMessageParam[];

/**
 * The sources of the turn: the last system message in the grounding format and the `search_knowledge` results
 * after the last user message (earlier turns' results may reuse numbers); the first of a number wins. Undefined
 * when the request has no sources block at all, an empty list when its blocks found nothing.
 */
const turnSources = (messages: Messages): PromptSource[] | undefined => {
  const system = messages.findLast(
    (message) =>
      (message.role === 'system' || message.role === 'developer') && isSourcesText(textOf(message.content)),
  );
  const found = currentTurn(messages).filter(
    (message) => isToolResult(message) && isSourcesText(textOf(message.content)),
  );
  const blocks = system ? [system, ...found] : found;
  if (blocks.length === 0) return undefined;
  const byIndex = new Map<number, PromptSource>();
  for (const message of blocks)
    for (const source of parseSources(textOf(message.content)))
      if (!byIndex.has(source.index)) byIndex.set(source.index, source);
  return [...byIndex.values()];
};

/** Whether the user asks to search and the turn has not searched yet: one search a turn, then an answer. */
const searchAsked = (messages: Messages): boolean => {
  const user = lastUserMessage(messages);
  return (
    user !== undefined &&
    searchQueryOf(textOf(user.content)) !== undefined &&
    !currentTurn(messages).some(isToolResult)
  );
};

export const knowledgeOfflineResponder: OfflineResponder = {
  name: 'knowledge',
  tools: [
    {
      name: SEARCH_KNOWLEDGE_TOOL,
      asked: searchAsked,
      args: (_messages, said) => ({ query: searchQueryOf(said) ?? said }),
    },
  ],
  reply: (messages, before) => {
    const sources = turnSources(messages);
    const question = lastUserMessage(messages);
    if (!sources || !question) return before();
    const text = groundedAnswer(textOf(question.content), sources);
    return { text, found: text.startsWith(OFFLINE_GROUNDED_PREFIX) };
  },
};
