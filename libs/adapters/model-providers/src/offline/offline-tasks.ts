// The CPU-heavy work of the offline models and of token counting, as plain data in and out, so that it can run in
// this thread or in a worker thread (`offline-pool.ts`) alike.
import type { ChatCompletionTool, ChatCompletionToolChoiceOption } from 'openai/resources/chat/completions';
import type { ChatRequest } from '../provider.port.js';
import { offlineChat } from './offline-chat.js';
import { offlineEmbed } from './offline-embed.js';
import { offlineRerank } from './offline-rerank.js';
import { countMessageTokens, countTokens } from '#tokenizer';

export type OfflineTask =
  | { readonly op: 'chat'; readonly request: ChatRequest }
  | { readonly op: 'embed'; readonly inputs: readonly string[] }
  | { readonly op: 'rerank'; readonly query: string; readonly documents: readonly string[] }
  | { readonly op: 'countText'; readonly text: string }
  | {
      readonly op: 'countMessages';
      readonly messages: ChatRequest['messages'];
      readonly tools?: readonly ChatCompletionTool[] | null;
      readonly toolChoice?: ChatCompletionToolChoiceOption | null;
    };

/** A pure function exported by a compiled module of another context, run in the pool (`runPooled`). */
export interface PooledCall {
  readonly op: 'call';
  /** file: URL of the module, inside the compiled tree */
  readonly module: string;
  readonly name: string;
  readonly args: readonly unknown[];
}

export const runOfflineTask = (task: OfflineTask): unknown => {
  switch (task.op) {
    case 'chat':
      return offlineChat(task.request);
    case 'embed':
      return offlineEmbed(task.inputs);
    case 'rerank':
      return offlineRerank(task.query, task.documents);
    case 'countText':
      return countTokens(task.text);
    case 'countMessages':
      return countMessageTokens(task.messages, task.tools, task.toolChoice);
  }
};

/**
 * Characters of text a task works on (its strings, however nested), counted up to `cap`: past it, some number above
 * `cap`. What decides whether it leaves the calling thread; a prompt of 88,000 characters is not encoded as JSON just to
 * be measured (that cost the loop 30–60 ms a burst of forty such turns, measured on the bench machine).
 */
export const taskSize = (task: OfflineTask, cap = Number.POSITIVE_INFINITY): number => {
  switch (task.op) {
    case 'chat':
      return textChars([task.request.messages, task.request.tools], cap);
    case 'embed':
      return textChars(task.inputs, cap);
    case 'rerank':
      return textChars([task.query, task.documents], cap);
    case 'countText':
      return task.text.length;
    case 'countMessages':
      return textChars([task.messages, task.tools], cap);
  }
};

/** The characters of the strings in `value` (arrays and objects walked, keys not counted), stopping once past `cap`. */
export function textChars(value: unknown, cap = Number.POSITIVE_INFINITY): number {
  let chars = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && chars <= cap) {
    const next = pending.pop();
    if (typeof next === 'string') chars += next.length;
    else if (next !== null && typeof next === 'object')
      for (const item of Array.isArray(next) ? (next as unknown[]) : Object.values(next)) pending.push(item);
  }
  return chars;
}
