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

/** Characters of text a task works on: what decides whether it leaves the calling thread. */
export const taskSize = (task: OfflineTask): number => {
  switch (task.op) {
    case 'chat':
      return JSON.stringify(task.request.messages).length + JSON.stringify(task.request.tools ?? []).length;
    case 'embed':
      return task.inputs.reduce((sum, input) => sum + input.length, 0);
    case 'rerank':
      return task.documents.reduce((sum, document) => sum + document.length, task.query.length);
    case 'countText':
      return task.text.length;
    case 'countMessages':
      return JSON.stringify(task.messages).length + JSON.stringify(task.tools ?? []).length;
  }
};
