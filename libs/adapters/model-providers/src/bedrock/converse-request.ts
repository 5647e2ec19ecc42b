// A chat request (the chat-completions shape) as Amazon Bedrock's Converse API takes it: the system prompt apart,
// messages of content blocks in alternating roles (tool results in the user's turn), tools as tool specs and the
// sampling settings in `inferenceConfig`. Shapes from the API reference (API_runtime_Converse) and the
// `@aws-sdk/client-bedrock-runtime` models (ConverseRequest, ContentBlock, ToolConfiguration); over HTTP the image
// bytes are base64 (the SDK's JSON protocol encodes blobs so).
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import { ValidationError } from '#kernel';
import type { ChatRequest } from '../provider.port.js';

export type ConverseBlock =
  | { readonly text: string }
  | {
      readonly image: {
        readonly format: 'png' | 'jpeg' | 'gif' | 'webp';
        readonly source: { readonly bytes: string };
      };
    }
  | { readonly toolUse: { readonly toolUseId: string; readonly name: string; readonly input: unknown } }
  | {
      readonly toolResult: {
        readonly toolUseId: string;
        readonly content: readonly ({ readonly text: string } | { readonly json: unknown })[];
      };
    }
  | { readonly cachePoint: { readonly type: 'default' } };

export interface ConverseMessage {
  readonly role: 'user' | 'assistant';
  readonly content: ConverseBlock[];
}

export interface ConverseBody {
  readonly messages: ConverseMessage[];
  readonly system?: ConverseBlock[];
  readonly inferenceConfig?: {
    readonly maxTokens?: number;
    readonly temperature?: number;
    readonly topP?: number;
    readonly stopSequences?: readonly string[];
  };
  readonly toolConfig?: {
    readonly tools: readonly unknown[];
    readonly toolChoice?:
      { readonly auto: object } | { readonly any: object } | { readonly tool: { name: string } };
  };
}

const CACHE_POINT: ConverseBlock = { cachePoint: { type: 'default' } };

/** Whether a part or message carries a prompt-cache mark (Anthropic's `cache_control`, as the Messages API sends). */
const marked = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && 'cache_control' in value && !!value.cache_control;

const IMAGE_FORMATS: Readonly<Record<string, 'png' | 'jpeg' | 'gif' | 'webp'>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/** An image part as Converse takes it: the bytes of a data URL (Bedrock fetches no URLs). */
function imageBlock(url: string): ConverseBlock {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  const format = match ? IMAGE_FORMATS[match[1]!.toLowerCase()] : undefined;
  if (!match || !format)
    throw new ValidationError(
      'image_unsupported',
      'Bedrock takes images as data URLs (data:image/png|jpeg|gif|webp;base64,…), not links',
      'messages',
    );
  return { image: { format, source: { bytes: match[2]! } } };
}

/** The text and image blocks of a message's content (a string, or parts), with a cache point after a marked part. */
function contentBlocks(content: string | readonly unknown[] | null | undefined): ConverseBlock[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  const blocks: ConverseBlock[] = [];
  for (const part of (content ?? []) as ChatCompletionContentPart[]) {
    if (part.type === 'text' && part.text) blocks.push({ text: part.text });
    else if (part.type === 'image_url') blocks.push(imageBlock(part.image_url.url));
    if (marked(part) && blocks.length > 0) blocks.push(CACHE_POINT);
  }
  return blocks;
}

const textOf = (content: string | readonly unknown[] | null | undefined): string =>
  typeof content === 'string'
    ? content
    : ((content ?? []) as ChatCompletionContentPart[])
        .map((part) => (part.type === 'text' ? part.text : ''))
        .join('');

/** Tool call arguments as the object Converse's `input` is (what is not a JSON object goes as `{}`). */
function toolInput(args: string): unknown {
  try {
    const value: unknown = JSON.parse(args || '{}');
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** One message's blocks and the Converse role they belong to (tool results are the user's). */
function converseTurn(message: ChatCompletionMessageParam): ConverseMessage {
  if (message.role === 'assistant') {
    const content = contentBlocks(message.content as string | readonly unknown[] | null);
    for (const call of message.tool_calls ?? [])
      if (call.type === 'function')
        content.push({
          toolUse: {
            toolUseId: call.id,
            name: call.function.name,
            input: toolInput(call.function.arguments),
          },
        });
    return { role: 'assistant', content };
  }
  if (message.role === 'tool')
    return {
      role: 'user',
      content: [
        {
          toolResult: {
            toolUseId: message.tool_call_id,
            content: [{ text: textOf(message.content as string | readonly unknown[]) || '(empty)' }],
          },
        },
      ],
    };
  const content = contentBlocks(message.content as string | readonly unknown[]);
  if (marked(message) && content.length > 0) content.push(CACHE_POINT);
  return { role: 'user', content };
}

function toolConfig(
  tools: readonly ChatCompletionTool[] | undefined,
  choice: ChatCompletionToolChoiceOption | undefined,
  usesTools: boolean,
): ConverseBody['toolConfig'] {
  const specs = (tools ?? []).flatMap((tool) =>
    tool.type === 'function'
      ? [
          {
            toolSpec: {
              name: tool.function.name,
              ...(tool.function.description ? { description: tool.function.description } : {}),
              inputSchema: { json: tool.function.parameters ?? { type: 'object', properties: {} } },
            },
          },
          ...(marked(tool) ? [CACHE_POINT] : []),
        ]
      : [],
  );
  // Converse has no "none": the tools are left out, unless the history holds tool blocks (which need them declared).
  if (specs.length === 0 || (choice === 'none' && !usesTools)) return undefined;
  const toolChoice =
    choice === 'required'
      ? { any: {} }
      : typeof choice === 'object' && choice.type === 'function'
        ? { tool: { name: choice.function.name } }
        : choice === 'auto'
          ? { auto: {} }
          : undefined;
  return { tools: specs, ...(toolChoice ? { toolChoice } : {}) };
}

/** The Converse body of a chat request (the model id goes in the path). */
export function converseBody(request: ChatRequest): ConverseBody {
  const system: ConverseBlock[] = [];
  const messages: ConverseMessage[] = [];
  for (const message of request.messages) {
    if (message.role === 'system' || message.role === 'developer') {
      system.push(...contentBlocks(message.content as string | readonly unknown[]));
      if (marked(message) && system.length > 0) system.push(CACHE_POINT);
      continue;
    }
    const turn = converseTurn(message);
    if (turn.content.length === 0) continue;
    // Converse wants the roles to alternate: consecutive turns of one role (a tool result per call) become one.
    const last = messages.at(-1);
    if (last?.role === turn.role) last.content.push(...turn.content);
    else messages.push(turn);
  }
  const usesTools = messages.some((message) =>
    message.content.some((block) => 'toolUse' in block || 'toolResult' in block),
  );
  const tools = toolConfig(request.tools, request.tool_choice, usesTools);
  const stop = typeof request.stop === 'string' ? [request.stop] : (request.stop ?? undefined);
  const maxTokens = request.max_completion_tokens ?? request.max_tokens ?? undefined;
  const inference = {
    ...(maxTokens != null ? { maxTokens } : {}),
    ...(request.temperature != null ? { temperature: request.temperature } : {}),
    ...(request.top_p != null ? { topP: request.top_p } : {}),
    ...(stop?.length ? { stopSequences: stop } : {}),
  };
  return {
    messages,
    ...(system.length ? { system } : {}),
    ...(Object.keys(inference).length ? { inferenceConfig: inference } : {}),
    ...(tools ? { toolConfig: tools } : {}),
  };
}
