// Anthropic's Messages API (`POST /messages`) as a format over chat completions: its request translated into the
// gateway's ChatRequest, a ChatResult into a `message`, and chat deltas into its stream events (`message_start`,
// `content_block_start|delta|stop`, `message_delta` with usage, `message_stop`). Errors are Anthropic's shape.
// Prompt-cache marks (`cache_control`) stay on the part, tool, tool call or tool message they were on, so an Anthropic
// upstream gets them where the client put them (cache-control.ts in model-providers).
// Over 300 lines on purpose: one wire format end to end (request schema, translation, answer, stream events), so a
// field's way in and its way out are read side by side.
import { z } from 'zod';
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { newId, ValidationError } from '#kernel';
import { anthropicErrorBody, type ErrorBody } from '#http';
import {
  cacheControlOf,
  INPUT_LIMITS,
  withinChars,
  type ChatDelta,
  type ChatRequest,
  type ChatResult,
  type TokenUsage,
} from '#model-providers';
import type { SseWriter } from './sse.js';
import type { StreamEncoder } from './stream-reply.js';

const optional = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

const Block = z.looseObject({ type: z.string().min(1) });

export const MessagesBody = z.object({
  model: z.string().min(1).max(256),
  max_tokens: z.number().int().min(1),
  messages: z
    .array(
      z.looseObject({
        // `system` mid-conversation: what Claude Code sends for its reminders (text only).
        role: z.enum(['user', 'assistant', 'system']),
        content: z.union([z.string(), z.array(Block)]),
      }),
    )
    .min(1, 'at least one message is required')
    .superRefine(withinChars(INPUT_LIMITS.chatChars, 'the messages')),
  system: optional(
    z
      .union([z.string(), z.array(z.looseObject({ type: z.literal('text'), text: z.string() }))])
      .superRefine(withinChars(INPUT_LIMITS.chatChars, 'the system prompt')),
  ),
  tools: optional(
    z
      .array(
        z.looseObject({
          type: optional(z.string()),
          name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only, at most 64'),
          description: optional(z.string()),
          input_schema: optional(z.record(z.string(), z.unknown())),
        }),
      )
      .max(128),
  ),
  tool_choice: optional(
    z.looseObject({
      type: z.enum(['auto', 'any', 'tool', 'none']),
      name: optional(z.string().min(1)),
      disable_parallel_tool_use: optional(z.boolean()),
    }),
  ),
  temperature: optional(z.number().min(0).max(1)),
  top_p: optional(z.number().min(0).max(1)),
  top_k: optional(z.number().int().min(1)),
  stop_sequences: optional(z.array(z.string()).max(4)),
  stream: optional(z.boolean()),
});
export type MessagesBody = z.output<typeof MessagesBody>;

const refuse = (param: string, why: string): never => {
  throw new ValidationError(
    'unsupported_parameter',
    `${param} is not supported by this gateway: ${why}`,
    param,
  );
};

type Blocks = readonly { type: string; [key: string]: unknown }[];

const textOf = (content: string | Blocks, param: string): string =>
  typeof content === 'string'
    ? content
    : content
        .map((block, index) =>
          block.type === 'text' && typeof block.text === 'string'
            ? block.text
            : refuse(`${param}.${index}.type`, `a '${block.type}' block is not available here`),
        )
        .join('');

/** The block's prompt-cache mark as a field to spread into what it becomes (LiteLLM's `cache_control` on parts). */
const markOf = (block: unknown) => {
  const mark = cacheControlOf(block);
  return mark ? { cache_control: mark } : {};
};

/** Text blocks as one string, or as text parts when one is marked for the cache (the mark stays where it was). */
function textContent(content: string | Blocks, param: string): string | ChatCompletionContentPart[] {
  if (typeof content === 'string' || !content.some((block) => cacheControlOf(block)))
    return textOf(content, param);
  textOf(content, param);
  return content.map((block) => ({ type: 'text', text: block.text as string, ...markOf(block) }));
}

function imagePart(block: Record<string, unknown>, param: string): ChatCompletionContentPart {
  const source = block.source as
    { type?: string; media_type?: string; data?: string; url?: string } | undefined;
  if (source?.type === 'base64' && source.media_type && source.data)
    return {
      type: 'image_url',
      image_url: { url: `data:${source.media_type};base64,${source.data}` },
      ...markOf(block),
    };
  if (source?.type === 'url' && source.url)
    return { type: 'image_url', image_url: { url: source.url }, ...markOf(block) };
  return refuse(`${param}.source`, 'an image needs a base64 or url source');
}

/** An assistant turn's blocks: its text (as parts when one is marked for the cache) and tool calls. */
function assistantMessage(content: Blocks, param: string): ChatCompletionMessageParam {
  let text = '';
  const texts: ChatCompletionContentPart[] = [];
  const calls: ChatCompletionMessageToolCall[] = [];
  content.forEach((block, at) => {
    if (block.type === 'text' && typeof block.text === 'string') {
      text += block.text;
      texts.push({ type: 'text', text: block.text, ...markOf(block) });
    } else if (block.type === 'tool_use') {
      if (typeof block.id !== 'string' || typeof block.name !== 'string')
        refuse(`${param}.${at}`, 'a tool_use block needs id and name');
      calls.push({
        id: block.id as string,
        type: 'function',
        function: { name: block.name as string, arguments: JSON.stringify(block.input ?? {}) },
        ...markOf(block),
      });
    } else if (block.type !== 'thinking' && block.type !== 'redacted_thinking')
      refuse(`${param}.${at}.type`, `a '${block.type}' block is not available here`);
  });
  return {
    role: 'assistant',
    content: texts.some((part) => cacheControlOf(part)) ? texts : text || (calls.length ? null : ''),
    ...(calls.length ? { tool_calls: calls } : {}),
  } as ChatCompletionMessageParam;
}

/** The Messages request as the gateway's chat request (what every configured upstream speaks). */
export function messagesToChatRequest(body: MessagesBody): ChatRequest {
  const messages: ChatCompletionMessageParam[] = [];
  if (body.system)
    messages.push({
      role: 'system',
      content: textContent(body.system, 'system'),
    } as ChatCompletionMessageParam);
  body.messages.forEach((message, index) => {
    const param = `messages.${index}.content`;
    if (message.role === 'system') {
      messages.push({
        role: 'system',
        content: textContent(message.content, param),
      } as ChatCompletionMessageParam);
      return;
    }
    if (typeof message.content === 'string') {
      messages.push({ role: message.role, content: message.content });
      return;
    }
    if (message.role === 'assistant') {
      messages.push(assistantMessage(message.content, param));
      return;
    }
    // A user turn: its tool results become tool messages (chat completions wants them right after the calls),
    // the rest one user message.
    const parts: ChatCompletionContentPart[] = [];
    message.content.forEach((block, at) => {
      if (block.type === 'tool_result') {
        if (typeof block.tool_use_id !== 'string')
          refuse(`${param}.${at}.tool_use_id`, 'tool_use_id is required');
        const content = block.content as string | Blocks | undefined;
        const text = content === undefined ? '' : textOf(content, `${param}.${at}.content`);
        // A mark inside the result's content marks the result (its end is the same cache breakpoint).
        const marked = { ...(Array.isArray(content) ? markOf(content.at(-1)) : {}), ...markOf(block) };
        messages.push({
          role: 'tool',
          tool_call_id: block.tool_use_id as string,
          content: block.is_error === true ? `Error: ${text}` : text,
          ...marked,
        });
      } else if (block.type === 'text' && typeof block.text === 'string')
        parts.push({ type: 'text', text: block.text, ...markOf(block) });
      else if (block.type === 'image') parts.push(imagePart(block, `${param}.${at}`));
      else refuse(`${param}.${at}.type`, `a '${block.type}' block is not available here`);
    });
    if (parts.length)
      messages.push({
        role: 'user',
        content: parts.every((part) => part.type === 'text' && !cacheControlOf(part))
          ? parts.map((part) => (part as { text: string }).text).join('\n')
          : parts,
      });
  });
  const request: Record<string, unknown> = { messages, max_completion_tokens: body.max_tokens };
  if (body.tools?.length)
    request.tools = body.tools.map((tool, index): ChatCompletionTool => {
      if (tool.type && tool.type !== 'custom')
        return refuse(`tools.${index}.type`, `only client tools are available (not '${tool.type}')`);
      return {
        type: 'function',
        function: {
          name: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
          parameters: tool.input_schema ?? { type: 'object', properties: {} },
        },
        ...markOf(tool),
      };
    });
  const choice = body.tool_choice;
  if (choice) {
    if (choice.type === 'tool' && !choice.name)
      refuse('tool_choice.name', 'a tool choice of type tool names it');
    request.tool_choice =
      choice.type === 'auto'
        ? 'auto'
        : choice.type === 'any'
          ? 'required'
          : choice.type === 'none'
            ? 'none'
            : { type: 'function', function: { name: choice.name } };
    if (choice.disable_parallel_tool_use === true && body.tools?.length) request.parallel_tool_calls = false;
  }
  if (body.temperature !== null && body.temperature !== undefined) request.temperature = body.temperature;
  if (body.top_p !== null && body.top_p !== undefined) request.top_p = body.top_p;
  if (body.top_k !== null && body.top_k !== undefined) request.top_k = body.top_k;
  if (body.stop_sequences?.length) request.stop = body.stop_sequences;
  return request as unknown as ChatRequest;
}

const STOP_REASON = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
} as const;

/** Anthropic counts cache reads and writes apart from `input_tokens`. */
export const toAnthropicUsage = (usage: TokenUsage) => ({
  input_tokens: usage.inputTokens - usage.cachedInputTokens - (usage.cacheWriteTokens ?? 0),
  output_tokens: usage.outputTokens,
  cache_creation_input_tokens: usage.cacheWriteTokens ?? 0,
  cache_read_input_tokens: usage.cachedInputTokens,
});

type ContentBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

const messageId = () => `msg_${newId('x').slice(2)}`;

const parseInput = (json: string): unknown => {
  try {
    return json ? JSON.parse(json) : {};
  } catch {
    return {};
  }
};

/** The answer to a non-streamed request. */
export function toAnthropicMessage(model: string, result: ChatResult) {
  const content: ContentBlock[] = [];
  if (result.message.content) content.push({ type: 'text', text: result.message.content });
  for (const call of result.message.tool_calls ?? [])
    if (call.type === 'function')
      content.push({
        type: 'tool_use',
        id: call.id,
        name: call.function.name,
        input: parseInput(call.function.arguments),
      });
  return {
    id: messageId(),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: STOP_REASON[result.finishReason],
    stop_sequence: null,
    usage: toAnthropicUsage(result.usage),
  };
}

/** Chat deltas as the Messages stream; the usage comes with `message_delta` (input tokens are known only then). */
export class MessagesStreamEncoder implements StreamEncoder {
  private index = -1;
  private open: 'text' | 'tool_use' | null = null;
  /** Content-block index of each upstream tool-call index. */
  private readonly calls = new Map<number, number>();
  private usage: TokenUsage | null = null;
  private finish: ChatResult['finishReason'] = 'stop';

  constructor(private readonly model: string) {}

  private send(sse: SseWriter, type: string, fields: Record<string, unknown>): Promise<void> {
    return sse.event(type, { type, ...fields });
  }

  async start(sse: SseWriter): Promise<void> {
    await this.send(sse, 'message_start', {
      message: {
        id: messageId(),
        type: 'message',
        role: 'assistant',
        model: this.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    });
    await this.send(sse, 'ping', {});
  }

  private async close(sse: SseWriter): Promise<void> {
    if (this.open === null) return;
    this.open = null;
    await this.send(sse, 'content_block_stop', { index: this.index });
  }

  private async begin(sse: SseWriter, block: ContentBlock): Promise<void> {
    await this.close(sse);
    this.index++;
    this.open = block.type;
    await this.send(sse, 'content_block_start', { index: this.index, content_block: block });
  }

  async delta(piece: ChatDelta, sse: SseWriter): Promise<void> {
    if (piece.usage) this.usage = piece.usage;
    if (piece.finishReason) this.finish = piece.finishReason;
    const text = piece.delta.content;
    if (text) {
      if (this.open !== 'text') await this.begin(sse, { type: 'text', text: '' });
      await this.send(sse, 'content_block_delta', { index: this.index, delta: { type: 'text_delta', text } });
    }
    for (const call of piece.delta.tool_calls ?? []) {
      if (!this.calls.has(call.index)) {
        await this.begin(sse, {
          type: 'tool_use',
          id: call.id ?? `toolu_${newId('x').slice(2)}`,
          name: call.function?.name ?? '',
          input: {},
        });
        this.calls.set(call.index, this.index);
      }
      const args = call.function?.arguments;
      if (args)
        await this.send(sse, 'content_block_delta', {
          index: this.calls.get(call.index),
          delta: { type: 'input_json_delta', partial_json: args },
        });
    }
  }

  async end(sse: SseWriter): Promise<void> {
    if (sse.closed) return;
    await this.close(sse);
    await this.send(sse, 'message_delta', {
      delta: { stop_reason: STOP_REASON[this.finish], stop_sequence: null },
      usage: this.usage ? toAnthropicUsage(this.usage) : { output_tokens: 0 },
    });
    await this.send(sse, 'message_stop', {});
  }

  async error(status: number, body: ErrorBody, sse: SseWriter): Promise<void> {
    await sse.event('error', anthropicErrorBody(status, body));
  }
}
