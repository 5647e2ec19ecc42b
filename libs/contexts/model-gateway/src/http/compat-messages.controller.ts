// POST /api/compat/v1/messages and …/messages/count_tokens: Anthropic's Messages API (as the Anthropic SDKs and Claude
// Code send it, with `x-api-key` or `Authorization: Bearer`; `anthropic-version` is accepted and not needed), as a
// format over the same path as chat completions: the ApiKeyGuard, the model registry, the usage limits and recording
// in ModelGateway and the shared stream pump. Errors on this route are Anthropic's `{ type: 'error', error: { type, message } }` (the
// error filter picks the shape by path), so the SDK raises its own error classes.
import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AcceptsBearer, CurrentCaller, type Caller } from '#access';
import { parseOrThrow, ApiRoute } from '#http';
import { countMessageTokens } from '#tokenizer';
import { z } from 'zod';
import { directCallScope, ModelGateway } from '../model-gateway.js';
import { abortOnDisconnect } from './sse.js';
import { ChatReplies } from './chat-replies.js';
import {
  MessagesBody,
  MessagesStreamEncoder,
  messagesToChatRequest,
  toAnthropicMessage,
} from './messages.format.js';

/** A count_tokens body: a Messages request without `max_tokens` (and without `stream`). */
const CountTokensBody = MessagesBody.extend({ max_tokens: z.number().int().min(1).optional() });

@AcceptsBearer()
@Controller('api/compat/v1')
export class CompatMessagesController {
  constructor(
    private readonly gateway: ModelGateway,
    private readonly replies: ChatReplies,
  ) {}

  @ApiRoute({
    tag: 'Compatible API',
    bearer: true,
    summary: 'Create a message (Anthropic Messages format)',
    description:
      "The same model call as chat completions in Anthropic's Messages format: `model`, `max_tokens` (required), " +
      '`system` (string or text blocks), `messages` with text, image, `tool_use` and `tool_result` blocks, ' +
      '`tools`, `tool_choice` (auto, any, tool, none), `temperature`, `top_p`, `top_k`, `stop_sequences` (at most ' +
      '4), `stream`. Takes `x-api-key` or `Authorization: Bearer`; `anthropic-version` is accepted. Streams send ' +
      '`message_start`, `ping`, `content_block_start|delta|stop`, `message_delta` (stop reason and usage) and ' +
      "`message_stop`. Errors use Anthropic's shape `{ type: 'error', error: { type, message } }` (400 " +
      'invalid_request_error, 401 authentication_error, 403 permission_error, 404 not_found_error, 429 ' +
      'rate_limit_error with `retry-after`, 5xx api_error).',
    body: MessagesBody,
    response: { status: 200, description: 'A `message` (or its SSE event stream)' },
    errors: [400, 404, 429, 502, 504],
  })
  @Post('messages')
  @HttpCode(200)
  async create(
    @Body() raw: unknown,
    @CurrentCaller() caller: Caller,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const scope = directCallScope(caller, 'compat-messages');
    const body = parseOrThrow(MessagesBody, raw);
    const model = this.gateway.resolve(body.model, 'chat');
    const call = {
      scope,
      model,
      request: messagesToChatRequest(body),
      signal: abortOnDisconnect(reply),
      stream: body.stream === true,
    };
    await this.replies.send(reply, call, {
      whole: (result) => toAnthropicMessage(model.key, result),
      encoder: () => new MessagesStreamEncoder(model.key),
    });
  }

  @ApiRoute({
    tag: 'Compatible API',
    bearer: true,
    summary: 'Count the input tokens of a message request (Anthropic count_tokens)',
    description:
      'The input tokens the same Messages request (`model`, `messages`, `system`, `tools`, `tool_choice`; ' +
      "`max_tokens` optional) would send, counted with the gateway's tokenizer (o200k_base, the chat format's " +
      'overheads): an estimate for Anthropic models, whose own tokenizer is not public. No model is called and ' +
      'nothing is billed; the model must exist (404 otherwise).',
    body: CountTokensBody,
    response: {
      status: 200,
      schema: z.object({ input_tokens: z.number().int() }),
      description: 'The input tokens',
    },
    errors: [400, 404],
  })
  @Post('messages/count_tokens')
  @HttpCode(200)
  countTokens(@Body() raw: unknown) {
    const body = parseOrThrow(CountTokensBody, raw);
    this.gateway.resolve(body.model, 'chat');
    const request = messagesToChatRequest({ ...body, max_tokens: body.max_tokens ?? 1 });
    return { input_tokens: countMessageTokens(request.messages, request.tools, request.tool_choice) };
  }
}
