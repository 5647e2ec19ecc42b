// The Responses API (`POST /responses`) as a format over chat completions: its request translated into the gateway's
// ChatRequest, a ChatResult into a `response` object, and chat deltas into its typed stream events. A response is
// stored unless `store: false` (stored-responses/): its item ids name it, so an item reference finds its response; the
// route resolves `previous_response_id` and item references (responses-continuation.ts) before translating.
// `conversation` objects are not kept and are refused by name.
// Over 300 lines on purpose: one wire format end to end (request schema, refusals, translation, answer, stream events),
// so a field's way in and its way out are read side by side.
import { z } from 'zod';
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionFunctionTool,
} from 'openai/resources/chat/completions';
import { newId, ValidationError } from '#kernel';
import {
  INPUT_LIMITS,
  withinChars,
  type ChatDelta,
  type ChatRequest,
  type ChatResult,
  type TokenUsage,
} from '#model-providers';
import type { SseWriter } from './sse.js';
import type { StreamEncoder } from './stream-reply.js';
import type { ErrorBody } from '#http';
import { compatErrorBody, parseOrThrow } from '#http';

const optional = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

const Part = z.looseObject({ type: z.string().min(1) });
const InputItem = z.looseObject({
  type: z.string().optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']).optional(),
  content: z.union([z.string(), z.array(Part)]).optional(),
});

const FunctionTool = z.looseObject({
  type: z.string().min(1),
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only, at most 64')
    .optional(),
  description: optional(z.string()),
  parameters: optional(z.record(z.string(), z.unknown())),
  strict: optional(z.boolean()),
});

export const ResponsesBody = z.object({
  model: z.string().min(1).max(256),
  input: z
    .union([z.string(), z.array(InputItem).min(1, 'at least one input item is required')])
    .superRefine(withinChars(INPUT_LIMITS.chatChars, 'the input')),
  instructions: optional(z.string().superRefine(withinChars(INPUT_LIMITS.chatChars, 'the instructions'))),
  tools: optional(z.array(FunctionTool).max(128)),
  tool_choice: optional(
    z.union([
      z.enum(['none', 'auto', 'required']),
      z.looseObject({ type: z.literal('function'), name: z.string().min(1) }),
    ]),
  ),
  parallel_tool_calls: optional(z.boolean()),
  temperature: optional(z.number().min(0).max(2)),
  top_p: optional(z.number().min(0).max(1)),
  max_output_tokens: optional(z.number().int().min(1)),
  stream: optional(z.boolean()),
  store: optional(z.boolean()),
  previous_response_id: optional(z.string().max(200)),
  text: optional(z.looseObject({ format: optional(z.looseObject({ type: z.string() })) })),
});
export type ResponsesBody = z.output<typeof ResponsesBody>;

const refuse = (param: string, why: string): never => {
  throw new ValidationError(
    'unsupported_parameter',
    `${param} is not supported by this gateway: ${why}`,
    param,
  );
};

const NO_CONVERSATIONS =
  'this gateway keeps no conversation objects (continue with previous_response_id, or send the whole conversation)';

/** Fields that need stored state or features the chat-completions upstreams lack, refused with a 400 naming them. */
export function refuseUnsupportedResponsesFields(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const fields = body as Record<string, unknown>;
  const set = (field: string) => fields[field] !== undefined && fields[field] !== null;
  if (set('conversation')) refuse('conversation', NO_CONVERSATIONS);
  if (fields.background === true) refuse('background', 'responses are answered in the request');
  if (set('prompt')) refuse('prompt', 'stored prompt templates are not available');
  if (set('top_logprobs')) refuse('top_logprobs', 'log probabilities are not returned');
  const format = (fields.text as { format?: { type?: unknown } } | null | undefined)?.format;
  if (format && format.type !== 'text')
    refuse('text.format', 'use the core generateObject endpoint for structured output');
}

const textOf = (
  content: string | readonly { type: string; [key: string]: unknown }[],
  param: string,
): string =>
  typeof content === 'string'
    ? content
    : content
        .map((part, index) => {
          if (typeof part.text === 'string' && ['input_text', 'output_text', 'text'].includes(part.type))
            return part.text;
          if (part.type === 'refusal') return '';
          return refuse(`${param}.${index}.type`, `content of type '${part.type}' is not available here`);
        })
        .join('');

function userContent(
  content: string | readonly { type: string; [key: string]: unknown }[],
  param: string,
): string | ChatCompletionContentPart[] {
  if (typeof content === 'string') return content;
  return content.map((part, index): ChatCompletionContentPart => {
    if (part.type === 'input_text' && typeof part.text === 'string') return { type: 'text', text: part.text };
    if (part.type === 'input_image' && typeof part.image_url === 'string')
      return { type: 'image_url', image_url: { url: part.image_url } };
    return refuse(`${param}.${index}.type`, `content of type '${part.type}' is not available here`);
  });
}

/** The Responses request as the gateway's chat request (what every configured upstream speaks). */
export function responsesToChatRequest(body: ResponsesBody): ChatRequest {
  const messages: ChatCompletionMessageParam[] = [];
  if (body.instructions) messages.push({ role: 'system', content: body.instructions });
  const items =
    typeof body.input === 'string' ? [{ role: 'user' as const, content: body.input }] : body.input;
  items.forEach((raw, index) => {
    const param = `input.${index}`;
    const item = raw as Record<string, unknown> & z.output<typeof InputItem>;
    const type = item.type ?? 'message';
    if (type === 'message') {
      if (!item.role || item.content === undefined) return refuse(param, 'a message needs role and content');
      if (item.role === 'user')
        messages.push({ role: 'user', content: userContent(item.content, `${param}.content`) });
      else if (item.role === 'assistant')
        messages.push({ role: 'assistant', content: textOf(item.content, `${param}.content`) });
      else messages.push({ role: item.role, content: textOf(item.content, `${param}.content`) });
      return;
    }
    if (type === 'function_call') {
      const { call_id, name, arguments: args } = item;
      if (typeof call_id !== 'string' || typeof name !== 'string' || typeof args !== 'string')
        return refuse(param, 'a function_call needs call_id, name and arguments');
      const call: ChatCompletionMessageToolCall = {
        id: call_id,
        type: 'function',
        function: { name, arguments: args },
      };
      // The calls of one turn (after its text, if any) belong to one assistant message, as chat completions has them.
      const last = messages.at(-1);
      if (last?.role === 'assistant')
        (last as { tool_calls?: ChatCompletionMessageToolCall[] }).tool_calls = [
          ...(last.tool_calls ?? []),
          call,
        ];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
      return;
    }
    if (type === 'function_call_output') {
      const { call_id, output } = item;
      if (typeof call_id !== 'string' || (typeof output !== 'string' && !Array.isArray(output)))
        return refuse(param, 'a function_call_output needs call_id and output');
      messages.push({
        role: 'tool',
        tool_call_id: call_id,
        content: textOf(output as string | { type: string }[], `${param}.output`),
      });
      return;
    }
    // Reasoning items of earlier turns carry nothing an upstream of chat completions can take.
    if (type === 'reasoning') return;
    // Resolved by the route before translating (responses-continuation.ts): one left here names nothing stored.
    if (type === 'item_reference') return refuse(param, 'the referenced item is not stored');
    return refuse(`${param}.type`, `input items of type '${type}' are not available`);
  });
  if (messages.length === 0) refuse('input', 'at least one message is required');
  const request: Record<string, unknown> = { messages };
  if (body.tools?.length) request.tools = functionTools(body.tools).map(({ tool }) => tool);
  const choice = body.tool_choice;
  if (choice !== null && choice !== undefined)
    request.tool_choice =
      typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
  if (body.parallel_tool_calls !== null && body.parallel_tool_calls !== undefined && body.tools?.length)
    request.parallel_tool_calls = body.parallel_tool_calls;
  if (body.temperature !== null && body.temperature !== undefined) request.temperature = body.temperature;
  if (body.top_p !== null && body.top_p !== undefined) request.top_p = body.top_p;
  if (body.max_output_tokens !== null && body.max_output_tokens !== undefined)
    request.max_completion_tokens = body.max_output_tokens;
  return request as unknown as ChatRequest;
}

type ToolEntry = z.output<typeof FunctionTool>;

/**
 * The function tools offered, as chat-completions tools: `function` tools, and the functions inside `namespace`
 * tools (as the Codex CLI groups some), with the namespace each came from. Hosted tools (web search, file search,
 * code interpreter, …) have no counterpart upstream and are refused naming them.
 */
function functionTools(
  tools: readonly ToolEntry[],
  param = 'tools',
  namespace?: string,
): { tool: ChatCompletionFunctionTool; namespace?: string }[] {
  return tools.flatMap((tool, index) => {
    if (tool.type === 'namespace' && !namespace && typeof tool.name === 'string' && Array.isArray(tool.tools))
      return functionTools(
        parseOrThrow(z.array(FunctionTool), tool.tools),
        `${param}.${index}.tools`,
        tool.name,
      );
    if (tool.type !== 'function' || !tool.name)
      return refuse(`${param}.${index}.type`, `only function tools are available (not '${tool.type}')`);
    return [
      {
        tool: {
          type: 'function' as const,
          function: {
            name: tool.name,
            ...(tool.description ? { description: tool.description } : {}),
            ...(tool.parameters ? { parameters: tool.parameters } : {}),
            ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
          },
        },
        ...(namespace ? { namespace } : {}),
      },
    ];
  });
}

export const toResponsesUsage = (usage: TokenUsage) => ({
  input_tokens: usage.inputTokens,
  input_tokens_details: { cached_tokens: usage.cachedInputTokens },
  output_tokens: usage.outputTokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: usage.inputTokens + usage.outputTokens,
});

type OutputItem =
  | {
      type: 'message';
      id: string;
      status: 'in_progress' | 'completed';
      role: 'assistant';
      content: { type: 'output_text'; text: string; annotations: []; logprobs: [] }[];
    }
  | {
      type: 'function_call';
      id: string;
      call_id: string;
      name: string;
      /** The namespace tool the function was offered in. */
      namespace?: string;
      arguments: string;
      status: 'in_progress' | 'completed';
    };

/**
 * The stored response an item id belongs to: items are named `<prefix>_<response's suffix>_<n>` (the response is
 * `resp_<suffix>`), so a reference to an item finds its response without an index. Null for any other id.
 */
export const responseOfItem = (itemId: string): string | null => {
  const match = /^[a-z]+_([A-Za-z0-9]{1,64})_[a-z]?\d+$/.exec(itemId);
  return match ? `resp_${match[1]}` : null;
};

/** A `response` object: the request's settings echoed, the output items, the status and usage. */
export class ResponseShell {
  private readonly suffix = newId('x').slice(2);
  readonly id = `resp_${this.suffix}`;
  readonly createdAt = Math.floor(Date.now() / 1000);
  private readonly namespaces = new Map<string, string>();
  private items = 0;

  constructor(
    private readonly model: string,
    private readonly body: ResponsesBody,
  ) {
    for (const { tool, namespace } of functionTools(body.tools ?? []))
      if (namespace) this.namespaces.set(tool.function.name, namespace);
  }

  /** The id of the response's next output item: `msg_…` or `fc_…`, naming the response (responseOfItem). */
  itemId(prefix: 'msg' | 'fc'): string {
    return `${prefix}_${this.suffix}_${this.items++}`;
  }

  /** The input items as the response keeps them: each with an id naming the response (`in_…_i<n>`) unless it has one. */
  inputItems(items: readonly Record<string, unknown>[]): Record<string, unknown>[] {
    return items.map((item, index) =>
      typeof item.id === 'string'
        ? item
        : { ...item, type: item.type ?? 'message', id: `in_${this.suffix}_i${index}` },
    );
  }

  /** A function call's item fields: its name, and the namespace it was offered in. */
  callee(name: string): { name: string; namespace?: string } {
    const namespace = this.namespaces.get(name);
    return namespace ? { name, namespace } : { name };
  }

  object(
    status: 'in_progress' | 'completed' | 'incomplete' | 'failed',
    output: readonly OutputItem[],
    usage: TokenUsage | null,
  ) {
    const text = output
      .flatMap((item) => (item.type === 'message' ? item.content.map((part) => part.text) : []))
      .join('');
    return {
      id: this.id,
      object: 'response',
      created_at: this.createdAt,
      status,
      error: null,
      incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
      instructions: this.body.instructions ?? null,
      max_output_tokens: this.body.max_output_tokens ?? null,
      model: this.model,
      output,
      output_text: text,
      parallel_tool_calls: this.body.parallel_tool_calls ?? true,
      previous_response_id: this.body.previous_response_id ?? null,
      reasoning: { effort: null, summary: null },
      store: this.body.store !== false,
      temperature: this.body.temperature ?? null,
      text: { format: { type: 'text' } },
      tool_choice: this.body.tool_choice ?? 'auto',
      tools: this.body.tools ?? [],
      top_p: this.body.top_p ?? null,
      truncation: 'disabled',
      usage: usage ? toResponsesUsage(usage) : null,
      metadata: {},
    };
  }

  /** The answer to a non-streamed request. */
  fromResult(result: ChatResult) {
    const output: OutputItem[] = [];
    const content = result.message.content;
    if (content)
      output.push({
        type: 'message',
        id: this.itemId('msg'),
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: content, annotations: [], logprobs: [] }],
      });
    for (const call of result.message.tool_calls ?? [])
      if (call.type === 'function')
        output.push({
          type: 'function_call',
          id: this.itemId('fc'),
          call_id: call.id,
          ...this.callee(call.function.name),
          arguments: call.function.arguments,
          status: 'completed',
        });
    return this.object(result.finishReason === 'length' ? 'incomplete' : 'completed', output, result.usage);
  }
}

/**
 * Chat deltas as the Responses stream: `response.created`, `response.in_progress`, then per output item
 * `output_item.added`, its content part or argument deltas and their `done` events, `output_item.done`, and finally
 * `response.completed` (or `response.incomplete` when cut at max_output_tokens); every event has its sequence_number.
 */
export class ResponsesStreamEncoder implements StreamEncoder {
  private sequence = 0;
  private readonly output: OutputItem[] = [];
  private open: OutputItem | null = null;
  /** Output index of each upstream tool-call index. */
  private readonly calls = new Map<number, number>();
  private usage: TokenUsage | null = null;
  private finish: ChatResult['finishReason'] | null = null;

  /** `completed`: told the final response before `response.completed` is sent (to store it first). */
  constructor(
    private readonly shell: ResponseShell,
    private readonly completed?: (response: ReturnType<ResponseShell['object']>) => Promise<void>,
  ) {}

  private send(sse: SseWriter, type: string, fields: Record<string, unknown>): Promise<void> {
    return sse.event(type, { type, sequence_number: this.sequence++, ...fields });
  }

  async start(sse: SseWriter): Promise<void> {
    const response = this.shell.object('in_progress', [], null);
    await this.send(sse, 'response.created', { response });
    await this.send(sse, 'response.in_progress', { response });
  }

  private async close(sse: SseWriter): Promise<void> {
    const item = this.open;
    if (!item) return;
    this.open = null;
    const output_index = this.output.indexOf(item);
    item.status = 'completed';
    if (item.type === 'message') {
      const part = item.content[0]!;
      const at = { item_id: item.id, output_index, content_index: 0 };
      await this.send(sse, 'response.output_text.done', { ...at, text: part.text, logprobs: [] });
      await this.send(sse, 'response.content_part.done', { ...at, part });
    } else
      await this.send(sse, 'response.function_call_arguments.done', {
        item_id: item.id,
        output_index,
        name: item.name,
        arguments: item.arguments,
      });
    await this.send(sse, 'response.output_item.done', { output_index, item });
  }

  private async add(sse: SseWriter, item: OutputItem): Promise<number> {
    await this.close(sse);
    this.output.push(item);
    this.open = item;
    const output_index = this.output.length - 1;
    const added =
      item.type === 'message' ? { ...item, content: [] } : { ...item, arguments: '', status: 'in_progress' };
    await this.send(sse, 'response.output_item.added', { output_index, item: added });
    return output_index;
  }

  async delta(piece: ChatDelta, sse: SseWriter): Promise<void> {
    if (piece.usage) this.usage = piece.usage;
    if (piece.finishReason) this.finish = piece.finishReason;
    const text = piece.delta.content;
    if (text) {
      if (this.open?.type !== 'message') {
        const output_index = await this.add(sse, {
          type: 'message',
          id: this.shell.itemId('msg'),
          status: 'in_progress',
          role: 'assistant',
          content: [{ type: 'output_text', text: '', annotations: [], logprobs: [] }],
        });
        await this.send(sse, 'response.content_part.added', {
          item_id: this.output[output_index]!.id,
          output_index,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        });
      }
      const message = this.open as Extract<OutputItem, { type: 'message' }>;
      message.content[0]!.text += text;
      await this.send(sse, 'response.output_text.delta', {
        item_id: message.id,
        output_index: this.output.length - 1,
        content_index: 0,
        delta: text,
        logprobs: [],
      });
    }
    for (const call of piece.delta.tool_calls ?? []) {
      let output_index = this.calls.get(call.index);
      if (output_index === undefined) {
        output_index = await this.add(sse, {
          type: 'function_call',
          id: this.shell.itemId('fc'),
          call_id: call.id ?? `call_${newId('x').slice(2)}`,
          ...this.shell.callee(call.function?.name ?? ''),
          arguments: '',
          status: 'in_progress',
        });
        this.calls.set(call.index, output_index);
      }
      const item = this.output[output_index] as Extract<OutputItem, { type: 'function_call' }>;
      const args = call.function?.arguments;
      if (args) {
        item.arguments += args;
        await this.send(sse, 'response.function_call_arguments.delta', {
          item_id: item.id,
          output_index,
          delta: args,
        });
      }
    }
  }

  async end(sse: SseWriter): Promise<void> {
    if (sse.closed) return;
    await this.close(sse);
    const incomplete = this.finish === 'length';
    const response = this.shell.object(incomplete ? 'incomplete' : 'completed', this.output, this.usage);
    await this.completed?.(response);
    await this.send(sse, incomplete ? 'response.incomplete' : 'response.completed', { response });
  }

  async error(status: number, body: ErrorBody, sse: SseWriter): Promise<void> {
    const { message, code, param } = compatErrorBody(status, body).error;
    await this.send(sse, 'error', { code, message, param });
  }
}
