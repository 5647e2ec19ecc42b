// POST /api/compat/v1/responses: OpenAI's Responses API as a format over the same path as chat completions (the
// ApiKeyGuard's two headers, the model registry, the usage limits and recording in ModelGateway, the shared stream
// pump): this route resolves what the request continues (`previous_response_id`, item references), translates the
// request and the answer, and stores the answer unless `store: false`.
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
import { StoredResponses } from '../stored-responses/stored-response.repository.js';
import { continuedInput } from './responses-continuation.js';
import {
  refuseUnsupportedResponsesFields,
  ResponseShell,
  ResponsesBody,
  ResponsesStreamEncoder,
  responsesToChatRequest,
} from './responses.format.js';

/** Whether the input names stored items (an `item_reference`). */
const hasReference = (input: ResponsesBody['input']): boolean =>
  typeof input !== 'string' && input.some((item) => item.type === 'item_reference');

@AcceptsBearer()
@Controller('api/compat/v1')
export class CompatResponsesController {
  constructor(
    private readonly gateway: ModelGateway,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly replies: ChatReplies,
    private readonly stored: StoredResponses,
  ) {}

  @ApiRoute({
    tag: 'Compatible API',
    bearer: true,
    summary: 'Create a response (OpenAI Responses format)',
    description:
      'The same model call as chat completions in the Responses format: `input` (a string or message, ' +
      '`function_call`, `function_call_output` and `item_reference` items), `instructions`, function `tools`, ' +
      '`tool_choice`, `temperature`, `top_p`, `max_output_tokens`, `stream`, `previous_response_id`. The answer is ' +
      "stored (the key's person's, sealed, for RESPONSES_RETENTION_DAYS) unless `store: false`: a later request " +
      'continues it with `previous_response_id` (its input and output come before the new input; its ' +
      '`instructions` do not carry over) or names its items with `item_reference`; an unknown or expired one, or ' +
      "another person's, answers 400 `previous_response_not_found` / `item_not_found`. `conversation`, non-function " +
      'tools and `text.format` other than text answer 400 naming the field. With `stream: true` the answer is the ' +
      'typed event stream (`response.created` … `response.completed`, each with its `sequence_number`). Errors, ' +
      'limits and usage recording are those of chat completions.',
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
    const continues = body.previous_response_id || hasReference(body.input);
    const { input } = continues
      ? await continuedInput(this.stored, caller.userId, body)
      : {
          input:
            typeof body.input === 'string'
              ? [{ type: 'message', role: 'user', content: body.input }]
              : body.input,
        };
    const request = responsesToChatRequest({ ...body, input: input as ResponsesBody['input'] });
    const signal = abortOnDisconnect(reply);
    if (model.api === 'responses')
      return this.passThrough(
        { ...(raw as ResponsesPayload), input, previous_response_id: undefined } as ResponsesPayload,
        body,
        request,
        model,
        scope,
        signal,
        reply,
      );
    const shell = new ResponseShell(model.key, body);
    const keep =
      body.store === false
        ? undefined
        : (response: ReturnType<ResponseShell['object']>) => this.keep(caller, shell, body, input, response);
    await this.replies.send(
      reply,
      { scope, model, request, signal, stream: body.stream === true },
      {
        whole: (result) => {
          const response = shell.fromResult(result);
          keep?.(response);
          return response;
        },
        encoder: () => new ResponsesStreamEncoder(shell, keep && (async (response) => keep(response))),
      },
    );
  }

  /**
   * Stores the answer while it is sent (StoredResponses.store); a failure to store is logged (a later continuation
   * then fails as for an unknown response).
   */
  private keep(
    caller: Caller,
    shell: ResponseShell,
    body: ResponsesBody,
    input: readonly Record<string, unknown>[],
    response: ReturnType<ResponseShell['object']>,
  ): void {
    void this.stored
      .store(caller, {
        responseId: shell.id,
        model: response.model,
        previousResponseId: body.previous_response_id ?? null,
        input: shell.inputItems(input),
        response,
      })
      .catch((error: unknown) =>
        this.logger.error(
          { err: error instanceof Error ? error.name : 'error' },
          'a response could not be stored',
        ),
      );
  }

  /**
   * A model configured `api: responses`: the body goes upstream as the client sent it (validated and refused alike,
   * what it continues resolved into its input, never stored there: `store: false`), the answer comes back as the
   * upstream sent it, with our model key. It is not stored here either: its item ids are the upstream's.
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
