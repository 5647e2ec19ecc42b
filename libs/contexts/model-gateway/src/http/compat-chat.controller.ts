// POST /api/compat/v1/chat/completions: the common chat-completions format, straight to the model (no Agent prompt,
// Knowledge, tools or memory). Non-streaming answers a `chat.completion`; `stream: true` answers SSE
// `chat.completion.chunk`s ending with `data: [DONE]`, plus a usage chunk when `stream_options.include_usage` is set.
// Errors before the first chunk are ordinary HTTP errors; an error after it is sent as an `error` event.
import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { newId } from '#kernel';
import { AcceptsBearer, CurrentCaller, type Caller } from '#access';
import { parseOrThrow, compatErrorBody, ApiRoute } from '#http';
import type { ChatDelta, ChatRequest, ChatResult, TokenUsage } from '#model-providers';
import { directCallScope, ModelGateway, type CallScope } from '../model-gateway.js';
import { ChatCompletionBody, refuseUnsupportedChatFields } from './compat.schemas.js';
import { abortOnDisconnect } from './sse.js';
import { ChatReplies } from './chat-replies.js';
import type { StreamEncoder } from './stream-reply.js';
import { ChatCompletion, ERRORS } from './compat.responses.js';

export const toOpenAiUsage = (usage: TokenUsage) => ({
  prompt_tokens: usage.inputTokens,
  completion_tokens: usage.outputTokens,
  total_tokens: usage.inputTokens + usage.outputTokens,
  prompt_tokens_details: { cached_tokens: usage.cachedInputTokens },
});

/** The upstream request: the client's fields as sent (null and absent left out), without model and stream. */
export function toChatRequest(body: ChatCompletionBody): ChatRequest {
  const {
    model: _model,
    stream: _stream,
    stream_options: _streamOptions,
    n: _n,
    logprobs: _logprobs,
    max_completion_tokens,
    max_tokens,
    ...fields
  } = body;
  const request: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields))
    if (value !== null && value !== undefined) request[field] = value;
  // max_completion_tokens wins; the legacy name is kept only when it is the one sent (some upstreams know only it).
  if (max_completion_tokens !== null && max_completion_tokens !== undefined)
    request.max_completion_tokens = max_completion_tokens;
  else if (max_tokens !== null && max_tokens !== undefined) request.max_tokens = max_tokens;
  return request as unknown as ChatRequest;
}

/** The scope of a compatible call: the policy's `model.call` (see directCallScope). */
export const compatScope = (caller: Caller): CallScope => directCallScope(caller, 'compat');

@AcceptsBearer()
@Controller('api/compat/v1')
export class CompatChatController {
  constructor(
    private readonly gateway: ModelGateway,
    private readonly replies: ChatReplies,
  ) {}

  @ApiRoute({
    tag: 'Compatible API',
    bearer: true,
    summary: 'Create a chat completion (OpenAI format)',
    description:
      'Straight to the model: no Agent prompt, Knowledge, tools or memory. `max_completion_tokens` wins over ' +
      '`max_tokens`. Unsupported: `n` other than 1, `logprobs: true`, `response_format`, `logit_bias` (400 naming ' +
      'the field). With `stream: true` the answer is `text/event-stream`: `data: {chat.completion.chunk}` events, a ' +
      'final usage chunk (`choices: []`) when `stream_options.include_usage` is true, then `data: [DONE]`. An error ' +
      'after the first chunk arrives as a `data: {"error": …}` event. A client that reads nothing for ' +
      '`STREAM_STALL_TIMEOUT_MS` is disconnected. Messages and tools: at most 1,000,000 characters (400 ' +
      '`input_too_large`). A usage-limit 429 carries `Retry-After` and `x-should-retry: false`.',
    body: ChatCompletionBody,
    response: {
      status: 200,
      schema: ChatCompletion,
      description: 'A chat.completion (or an SSE stream of chunks)',
    },
    errors: [ERRORS[400], ERRORS[404], ERRORS[429], ERRORS[502], ERRORS[504]],
  })
  @Post('chat/completions')
  @HttpCode(200)
  async create(
    @Body() raw: unknown,
    @CurrentCaller() caller: Caller,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const scope = compatScope(caller);
    refuseUnsupportedChatFields(raw);
    const body = parseOrThrow(ChatCompletionBody, raw);
    const model = this.gateway.resolve(body.model, 'chat');
    const id = `chatcmpl-${newId('c').slice(2)}`;
    const created = Math.floor(Date.now() / 1000);
    const call = {
      scope,
      model,
      request: toChatRequest(body),
      signal: abortOnDisconnect(reply),
      stream: body.stream === true,
    };
    await this.replies.send(reply, call, {
      whole: (result) => completion(id, created, model.key, result),
      encoder: () => chunkEncoder(id, created, model.key, body.stream_options?.include_usage === true),
    });
  }
}

/** Chat deltas as `chat.completion.chunk` events: the role on the first, usage last when asked, then `[DONE]`. */
function chunkEncoder(id: string, created: number, model: string, includeUsage: boolean): StreamEncoder {
  // The fields every chunk repeats, encoded once: a chunk is this head, its choices and its tail, the same bytes
  // JSON.stringify makes of the whole object (same keys in the same order).
  const head =
    `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},` +
    `"model":${JSON.stringify(model)},"system_fingerprint":null,"choices":`;
  const chunk = (choices: ChatCompletionChunk['choices'], usage?: ChatCompletionChunk['usage']) =>
    `${head}${JSON.stringify(choices)}${includeUsage ? `,"usage":${JSON.stringify(usage ?? null)}}` : '}'}`;
  let usage: TokenUsage | undefined;
  let first = true;
  return {
    // Not `async`: a delta the socket takes at once costs no promise of its own.
    delta: (piece: ChatDelta, sse) => {
      if (piece.usage) usage = piece.usage;
      if (!piece.finishReason && !first && !hasKeys(piece.delta)) return NOTHING_SENT;
      const delta = first && !piece.delta.role ? { role: 'assistant' as const, ...piece.delta } : piece.delta;
      first = false;
      return sse.data(chunk([{ index: 0, delta, finish_reason: piece.finishReason, logprobs: null }]));
    },
    end: async (sse) => {
      if (includeUsage && usage && !sse.closed) await sse.data(chunk([], toOpenAiUsage(usage)));
      await sse.data('[DONE]');
    },
    error: (status, error, sse) => sse.data(JSON.stringify(compatErrorBody(status, error))),
  };
}

/** What a delta that sends no chunk answers (a settled promise: nothing to wait for). */
const NOTHING_SENT: Promise<void> = Promise.resolve();

/** Whether an object has a key of its own, without the array `Object.keys` makes. */
function hasKeys(value: object): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return true;
  return false;
}

function completion(id: string, created: number, model: string, result: ChatResult) {
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message: {
          ...result.message,
          refusal: result.message.refusal ?? null,
          content: result.message.content ?? null,
        },
        finish_reason: result.finishReason,
        logprobs: null,
      },
    ],
    usage: toOpenAiUsage(result.usage),
  };
}
