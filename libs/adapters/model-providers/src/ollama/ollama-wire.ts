// Ollama's native chat API (https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion) in the
// port's terms: a chat-completions request as `/api/chat`'s body (images as bare base64, tool calls with arguments as
// objects, tool results named by their function in `tool_name`, sampling fields in `options`), its answers and NDJSON
// stream lines as results and deltas (tool call ids are ours: Ollama gives none), and its `{ error }` bodies as reasons.
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionMessageFunctionToolCall,
} from 'openai/resources/chat/completions';
import { errorJson } from '../upstream-http.js';
import { toolCallId } from '../native/native-calls.js';
import {
  saysContextLength,
  type ChatDelta,
  type ChatRequest,
  type ChatResult,
  type TokenUsage,
  type UpstreamReason,
} from '../provider.port.js';
import {
  argumentsOf,
  dataUrl,
  functionCall,
  refuse,
  setFields,
  samplingFields,
  textOf,
} from '../native/chat-parts.js';

export interface OllamaToolCall {
  id?: string;
  function: { index?: number; name: string; arguments: Record<string, unknown> };
}

export interface OllamaMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  thinking?: string;
  images?: string[];
  tool_calls?: OllamaToolCall[];
  tool_name?: string;
}

export interface OllamaChatRequest {
  model: string;
  messages: OllamaMessage[];
  stream: boolean;
  tools?: { type: 'function'; function: Record<string, unknown> }[];
  format?: 'json' | Record<string, unknown>;
  options?: Record<string, unknown>;
}

/** An answer, or one NDJSON line of a stream (the last one `done` with the reason and counts). */
export interface OllamaChatResponse {
  model?: string;
  message?: OllamaMessage;
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  /** A stream that fails after it started says so in a line of its own. */
  error?: string;
}

function userMessage(content: string | readonly ChatCompletionContentPart[], param: string): OllamaMessage {
  if (typeof content === 'string') return { role: 'user', content };
  const texts: string[] = [];
  const images: string[] = [];
  content.forEach((part, index) => {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'image_url') {
      const data = dataUrl(part.image_url.url)?.base64;
      images.push(
        data ??
          refuse(
            'unsupported_image',
            'Ollama takes images as data URLs (base64) only, not as links',
            `${param}[${index}]`,
          ),
      );
    } else
      refuse(
        'unsupported_content',
        `content parts of type '${part.type}' cannot go to Ollama`,
        `${param}[${index}]`,
      );
  });
  return { role: 'user', content: texts.join('\n'), ...(images.length ? { images } : {}) };
}

function messagesOf(messages: readonly ChatCompletionMessageParam[]): OllamaMessage[] {
  const callNames = new Map<string, string>();
  return messages.flatMap((message, index): OllamaMessage[] => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        return [{ role: 'system', content: textOf(message.content) }];
      case 'user':
        return [userMessage(message.content, `${param}.content`)];
      case 'assistant': {
        const calls = (message.tool_calls ?? []).map((toolCall, at): OllamaToolCall => {
          const call = functionCall(toolCall, `${param}.tool_calls[${at}]`, 'Ollama');
          callNames.set(call.id, call.function.name);
          return {
            function: {
              name: call.function.name,
              arguments: argumentsOf(call, `${param}.tool_calls[${at}]`),
            },
          };
        });
        return [
          {
            role: 'assistant',
            content: textOf(message.content as string | { type: string; text?: string }[] | null),
            ...(calls.length ? { tool_calls: calls } : {}),
          },
        ];
      }
      case 'tool': {
        const name = callNames.get(message.tool_call_id);
        return [{ role: 'tool', content: textOf(message.content), ...(name ? { tool_name: name } : {}) }];
      }
      case 'function':
        return [{ role: 'tool', content: message.content ?? '', tool_name: message.name }];
    }
  });
}

function optionsOf(request: ChatRequest): Record<string, unknown> | undefined {
  return setFields(
    samplingFields(request, {
      maxTokens: 'num_predict',
      temperature: 'temperature',
      topP: 'top_p',
      topK: 'top_k',
      stop: 'stop',
      seed: 'seed',
      presencePenalty: 'presence_penalty',
      frequencyPenalty: 'frequency_penalty',
    }),
  );
}

/** `/api/chat`'s body for `request`; throws a ValidationError (400) for what Ollama cannot take. */
export function ollamaRequest(modelId: string, request: ChatRequest, stream: boolean): OllamaChatRequest {
  const tools = (request.tools ?? []).map((tool, index) =>
    tool.type === 'function'
      ? { type: 'function' as const, function: { ...tool.function } }
      : refuse('unsupported_tool', 'Ollama takes function tools only', `tools[${index}]`),
  );
  // Ollama has no tool choice: `none` is said by offering no tools.
  const offered = request.tool_choice === 'none' ? [] : tools;
  const format = request.response_format;
  const options = optionsOf(request);
  return {
    model: modelId,
    messages: messagesOf(request.messages),
    stream,
    ...(offered.length ? { tools: offered } : {}),
    ...(format?.type === 'json_object' ? { format: 'json' as const } : {}),
    ...(format?.type === 'json_schema' ? { format: { ...(format.json_schema.schema ?? {}) } } : {}),
    ...(options ? { options } : {}),
  };
}

export const usageOf = (answer: OllamaChatResponse): TokenUsage => ({
  inputTokens: answer.prompt_eval_count ?? 0,
  cachedInputTokens: 0,
  outputTokens: answer.eval_count ?? 0,
});

/** `length` when Ollama stopped at `num_predict`; `stop` for its other reasons (`stop`, `load`, `unload`). */
export const finishOf = (answer: OllamaChatResponse, calledTools: boolean): ChatResult['finishReason'] =>
  calledTools ? 'tool_calls' : answer.done_reason === 'length' ? 'length' : 'stop';

const toolCallsOf = (calls: readonly OllamaToolCall[]): ChatCompletionMessageFunctionToolCall[] =>
  calls.map((call) => ({
    id: call.id || toolCallId(),
    type: 'function',
    function: { name: call.function.name, arguments: JSON.stringify(call.function.arguments ?? {}) },
  }));

export function chatResultOf(answer: OllamaChatResponse): ChatResult {
  const calls = toolCallsOf(answer.message?.tool_calls ?? []);
  const text = answer.message?.content ?? '';
  return {
    message: {
      role: 'assistant',
      content: text || (calls.length ? null : ''),
      refusal: null,
      ...(calls.length ? { tool_calls: calls } : {}),
    },
    finishReason: finishOf(answer, calls.length > 0),
    usage: usageOf(answer),
  };
}

/** Reads a stream's lines in order; the `done` line gives the finish and the usage. */
export class OllamaStreamReader {
  private toolCalls = 0;
  private started = false;

  read(line: OllamaChatResponse): ChatDelta[] {
    const deltas: ChatDelta[] = [];
    const role = () => (this.started ? {} : ((this.started = true), { role: 'assistant' as const }));
    const text = line.message?.content;
    if (text) deltas.push({ delta: { ...role(), content: text }, finishReason: null });
    const calls = line.message?.tool_calls ?? [];
    if (calls.length)
      deltas.push({
        delta: {
          ...role(),
          tool_calls: toolCallsOf(calls).map((call) => ({ index: this.toolCalls++, ...call })),
        },
        finishReason: null,
      });
    if (line.done)
      deltas.push({ delta: {}, finishReason: finishOf(line, this.toolCalls > 0), usage: usageOf(line) });
    return deltas;
  }
}

/**
 * Ollama answers `{ error: "…" }`: 404 for a model it does not have (the models file names a model not pulled), 400
 * for a request it cannot read or one longer than the context it was started with, 503 when its queue is full
 * (OLLAMA_MAX_QUEUE), 500 when the runner failed (another try may work); 401 and 429 come from ollama.com or a proxy.
 */
export function ollamaReason(status: number, body: string): UpstreamReason | undefined {
  const message = errorJson(body).error;
  if (
    (status === 400 || status === 500) &&
    saysContextLength(typeof message === 'string' ? message : undefined)
  )
    return 'context_length';
  if (status === 404) return 'bad_request';
  return undefined;
}
