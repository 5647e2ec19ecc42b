// POST /api/compat/v1/responses: OpenAI's Responses API, stateless, as a format over the same path as chat
// completions (the ApiKeyGuard's two headers, the model registry, the usage limits and recording in ModelGateway,
// the shared stream pump): this route only translates the request and the answer.
import { Body, Controller, HttpCode, Inject, Post, Res } from '@nestjs/common';
import type { Logger } from 'pino';
import type { FastifyReply } from 'fastify';
import { LOGGER, PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { AcceptsBearer, CurrentCaller, type Caller } from '#access';
import { parseOrThrow, ApiRoute, compatErrorBody } from '#http';
import type { ChatRequest, ModelConfig, ResponsesEvent, ResponsesPayload } from '#model-providers';
import { directCallScope, ModelGateway, type CallScope } from '../model-gateway.js';
import { abortOnDisconnect } from './sse.js';
import { ChatReplies } from './chat-replies.js';
import { streamReply } from './stream-reply.js';
import { ERRORS } from './compat.responses.js';
import {
  refuseUnsupportedResponsesFields,
  ResponseShell,
  ResponsesBody,
  ResponsesStreamEncoder,
  responsesToChatRequest,
} from './responses.format.js';

@AcceptsBearer()
@Controller('api/compat/v1')
export class CompatResponsesController {
  constructor(
    private readonly gateway: ModelGateway,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly replies: ChatReplies,
  ) {}

  @ApiRoute({
    tag: 'Compatible API',
    bearer: true,
    summary: 'Create a response (OpenAI Responses format, stateless)',
    description:
      'The same model call as chat completions in the Responses format: `input` (a string or message, ' +
      '`function_call` and `function_call_output` items), `instructions`, function `tools`, `tool_choice`, ' +
      '`temperature`, `top_p`, `max_output_tokens`, `stream`. Nothing is stored: `store: true`, ' +
      '`previous_response_id`, `conversation` and `item_reference` items answer 400 naming the field; so do ' +
      'non-function tools and `text.format` other than text. With `stream: true` the answer is the typed event ' +
      'stream (`response.created` … `response.completed`, each with its `sequence_number`). Errors, limits and ' +
      'usage recording are those of chat completions.',
    body: ResponsesBody,
    response: { status: 200, description: 'A `response` object (or its SSE event stream)' },
    errors: [ERRORS[400], ERRORS[404], ERRORS[429], ERRORS[502], ERRORS[504]],
  })
  @Post('responses')
  @HttpCode(200)
  async create(
    @Body() raw: unknown,
    @CurrentCaller() caller: Caller,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const scope = directCallScope(caller, 'compat-responses');
    refuseUnsupportedResponsesFields(raw);
    const body = parseOrThrow(ResponsesBody, raw);
    const model = this.gateway.resolve(body.model, 'chat');
    const request = responsesToChatRequest(body);
    const signal = abortOnDisconnect(reply);
    if (model.api === 'responses')
      return this.passThrough(raw as ResponsesPayload, body, request, model, scope, signal, reply);
    const shell = new ResponseShell(model.key, body);
    await this.replies.send(
      reply,
      { scope, model, request, signal, stream: body.stream === true },
      { whole: (result) => shell.fromResult(result), encoder: () => new ResponsesStreamEncoder(shell) },
    );
  }

  /**
   * A model configured `api: responses`: the body goes upstream as the client sent it (validated and refused alike,
   * never stored there: `store: false`), the answer comes back as the upstream sent it, with our model key.
   */
  private async passThrough(
    raw: ResponsesPayload,
    body: ResponsesBody,
    request: ChatRequest,
    model: ModelConfig,
    scope: CallScope,
    signal: AbortSignal,
    reply: FastifyReply,
  ): Promise<void> {
    const upstreamBody = { ...raw, store: false };
    if (!body.stream) {
      const answer = await this.gateway.responses(scope, model, upstreamBody, request, signal);
      void reply.status(200).send({ ...answer, model: model.key });
      return;
    }
    const events = await this.gateway.responsesStream(scope, model, upstreamBody, request, signal);
    let sequence = 0;
    await streamReply<ResponsesEvent>(
      reply,
      this.config.streamStallTimeoutMs,
      this.logger,
      model.key,
      events,
      {
        delta: (event, sse) => {
          sequence = typeof event.sequence_number === 'number' ? event.sequence_number + 1 : sequence + 1;
          const response = event.response as Record<string, unknown> | undefined;
          return sse.event(
            event.type,
            response ? { ...event, response: { ...response, model: model.key } } : event,
          );
        },
        end: async () => undefined,
        error: async (status, error, sse) => {
          const { message, code, param } = compatErrorBody(status, error).error;
          await sse.event('error', { type: 'error', sequence_number: sequence, code, message, param });
        },
      },
    );
  }
}
