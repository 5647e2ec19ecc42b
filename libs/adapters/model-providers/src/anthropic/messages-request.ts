// A chat request as the body of Anthropic's `POST /v1/messages` (https://docs.anthropic.com/en/api/messages): system
// messages become `system` blocks, the rest user and assistant turns of content blocks (text, image, tool_use,
// tool_result), consecutive turns of one role merged as the API requires; tools, tool choice, stop sequences and the
// sampling fields in Anthropic's names. Prompt-cache marks (cache-control.ts) stay on the block, tool or message
// they were on. Fields Anthropic has no counterpart for (seed, penalties) are left out, as LiteLLM drops them.
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import { ValidationError } from '#kernel';
import { cacheControlOf } from '../cache-control.js';
import type { ChatRequest } from '../provider.port.js';

/** Output tokens asked for when the client sets no limit: Anthropic requires `max_tokens`, and every model allows this. */
export const DEFAULT_MAX_TOKENS = 4096;

export type Block = Record<string, unknown> & { readonly type: string };

interface Turn {
  readonly role: 'user' | 'assistant';
  content: Block[];
}

const refuse = (param: string, why: string): never => {
  throw new ValidationError(
    'unsupported_parameter',
    `${param} is not supported by this model: ${why}`,
    param,
  );
};

/** `block` with the mark `from` carries, if any. */
const marked = <T extends Record<string, unknown>>(block: T, from: unknown): T => {
  const mark = cacheControlOf(from);
  return mark ? { ...block, cache_control: mark } : block;
};

/** A message-level mark goes on the message's last block. */
function markLast(blocks: Block[], message: unknown): Block[] {
  const mark = cacheControlOf(message);
  if (mark && blocks.length)
    blocks[blocks.length - 1] = { ...blocks[blocks.length - 1]!, cache_control: mark };
  return blocks;
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function imageBlock(url: string, param: string): Block {
  const data = DATA_URL.exec(url);
  if (data) return { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } };
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  return refuse(param, 'an image is a base64 data URL or an http(s) URL');
}

function contentBlocks(content: ChatCompletionMessageParam['content'], param: string): Block[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  return (content as readonly ChatCompletionContentPart[]).flatMap((part, index): Block[] => {
    if (part.type === 'text') return part.text ? [marked({ type: 'text', text: part.text }, part)] : [];
    if (part.type === 'image_url')
      return [marked(imageBlock(part.image_url.url, `${param}.${index}.image_url.url`), part)];
    if ((part.type as string) === 'refusal') return [];
    return refuse(`${param}.${index}.type`, `a '${part.type}' part is not available with Anthropic`);
  });
}

function parseArguments(call: ChatCompletionMessageToolCall): unknown {
  if (call.type !== 'function') return {};
  try {
    const input: unknown = JSON.parse(call.function.arguments || '{}');
    return typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {};
  } catch {
    return {};
  }
}

function toolUseBlocks(calls: readonly ChatCompletionMessageToolCall[] | undefined): Block[] {
  return (calls ?? []).flatMap((call) =>
    call.type === 'function'
      ? [
          marked(
            { type: 'tool_use', id: call.id, name: call.function.name, input: parseArguments(call) },
            call,
          ),
        ]
      : [],
  );
}

/** The turn a message becomes, or system blocks (returned apart: Anthropic takes the system prompt on its own). */
function translate(message: ChatCompletionMessageParam, param: string): Turn | Block[] | null {
  switch (message.role) {
    case 'system':
    case 'developer':
      return markLast(contentBlocks(message.content, `${param}.content`), message);
    case 'user':
      return { role: 'user', content: markLast(contentBlocks(message.content, `${param}.content`), message) };
    case 'assistant': {
      const blocks = [
        ...contentBlocks(message.content as ChatCompletionMessageParam['content'], `${param}.content`),
        ...toolUseBlocks(message.tool_calls),
      ];
      return blocks.length ? { role: 'assistant', content: markLast(blocks, message) } : null;
    }
    case 'tool': {
      const content = contentBlocks(message.content, `${param}.content`);
      const result = marked(
        { type: 'tool_result', tool_use_id: message.tool_call_id, ...(content.length ? { content } : {}) },
        message,
      );
      return { role: 'user', content: [result] };
    }
    default:
      return refuse(`${param}.role`, `a '${message.role}' message is not available with Anthropic`);
  }
}

function toolsOf(tools: readonly ChatCompletionTool[]): Record<string, unknown>[] {
  return tools.flatMap((tool) =>
    tool.type === 'function'
      ? [
          marked(
            {
              name: tool.function.name,
              ...(tool.function.description ? { description: tool.function.description } : {}),
              input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
            },
            tool,
          ),
        ]
      : [],
  );
}

function toolChoiceOf(choice: ChatCompletionToolChoiceOption | undefined, parallel: boolean | undefined) {
  const base: Record<string, unknown> =
    choice === undefined || choice === 'auto'
      ? { type: 'auto' }
      : choice === 'none'
        ? { type: 'none' }
        : choice === 'required'
          ? { type: 'any' }
          : choice.type === 'function'
            ? { type: 'tool', name: choice.function.name }
            : { type: 'auto' };
  if (parallel === false && base.type !== 'none') base.disable_parallel_tool_use = true;
  return choice === undefined && parallel !== false ? undefined : base;
}

/** The Messages API body for `request` to `modelId`. */
export function messagesBody(
  modelId: string,
  request: ChatRequest,
  stream: boolean,
): Record<string, unknown> {
  const system: Block[] = [];
  const turns: Turn[] = [];
  request.messages.forEach((message, index) => {
    const translated = translate(message, `messages.${index}`);
    if (translated === null) return;
    if (Array.isArray(translated)) system.push(...translated);
    else if (turns.at(-1)?.role === translated.role) turns.at(-1)!.content.push(...translated.content);
    else turns.push(translated);
  });
  const body: Record<string, unknown> = {
    model: modelId,
    max_tokens: request.max_completion_tokens ?? request.max_tokens ?? DEFAULT_MAX_TOKENS,
    messages: turns,
  };
  if (system.length) body.system = system;
  if (request.tools?.length) {
    body.tools = toolsOf(request.tools as readonly ChatCompletionTool[]);
    const choice = toolChoiceOf(request.tool_choice, request.parallel_tool_calls);
    if (choice) body.tool_choice = choice;
  }
  const stop = request.stop;
  if (stop !== null && stop !== undefined) body.stop_sequences = typeof stop === 'string' ? [stop] : stop;
  if (typeof request.temperature === 'number') body.temperature = request.temperature;
  if (typeof request.top_p === 'number') body.top_p = request.top_p;
  if (typeof request.top_k === 'number') body.top_k = request.top_k;
  if (typeof request.user === 'string' && request.user) body.metadata = { user_id: request.user };
  if (stream) body.stream = true;
  return body;
}
