// POST /llm/{agentId}/conversation (spec: continue or create a conversation and get the assistant reply), as JSON
// or, with `stream: true`, as named Server-Sent Events. Errors found before anything is streamed (unknown Agent or
// conversation, bad input, a usage limit) are plain HTTP errors; after that, an `error` event ends the stream.
// The documented exception to "a controller sends a command" (conversations.module.ts): the turn carries the client's
// AbortSignal and the stream's emitter, so this controller calls ConversationTurns directly; the turn's writes are
// still commands (StartTurn, RecordAnswer, CompactConversation).
import { Body, Controller, Headers, Inject, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { abortOnDisconnect, SseWriter } from '#model-gateway';
import { ApiRoute, toErrorResponse } from '#http';
import { idempotencyKeyOf } from '#identity';
import { CurrentCaller, type Caller } from '#access';
import { LOGGER, PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import type { Logger } from 'pino';
import { parseOrThrow } from '#http';
import { SendMessageBody, TURN_BODY_LIMIT_BYTES, TurnResultDto } from '../../conversation.schemas.js';
import { ConversationTurns, type TurnRequest } from '../../runtime/conversation-turn.js';
import { turnResult, type TurnAnswer } from '../../runtime/turn-answer.js';
import { BackgroundTurn } from '../../runtime/background-turn.js';
import type { NoticeEvent, TurnEvent } from '../../runtime/turn-events.js';
import { RunningTurns } from '../../runtime/running-turns.js';

@Controller('api/v1/core/llm/:agentId/conversation')
export class ConversationTurnController {
  constructor(
    private readonly turns: ConversationTurns,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly running: RunningTurns,
  ) {}

  // Over 100 lines on purpose: the route's OpenAPI documentation is most of it; the handler itself is short.
  @ApiRoute({
    tag: 'Conversations',
    summary: 'Continue or create a conversation and get the assistant reply',
    description:
      'The Agent answers from its system prompt, its Knowledge (numbered sources it cites as [n]; the model may call ' +
      'search_knowledge to search again, up to CONVERSATION_MAX_TOOL_STEPS model calls) and the conversation so far ' +
      '(compacted into a checkpoint once it outgrows its token budget). Every model call is recorded as usage with the ' +
      "conversation id, and the key's usage limit applies. With `stream: true` the answer comes as Server-Sent Events: " +
      '`conversation` (ids, first), `retrieval` (the sources found), `compaction`, `delta` ({ text }), `tool_call`, ' +
      '`tool_result`, then `done` (the full message, as in the JSON answer) or `error` (the error envelope). A client ' +
      'that disconnects aborts the model call; the turn is still recorded, marked incomplete. With `Idempotency-Key`, ' +
      'a retried turn returns the first answer (header `idempotent-replayed: true`) and appends nothing; while the ' +
      'first is still running a retry is 409; a turn that ended incomplete is answered again. A call of an App tool ' +
      'set to `ask` waits for your decision (POST …/tool-calls/{callId}): streamed, as the event ' +
      '`tool_approval_required` ({ callId, id, name, arguments }); not streamed, the answer is 202 ' +
      '`{ status: "awaiting_approval", conversationId, userMessage, pendingToolCalls: [{ callId, name, arguments }] }` ' +
      'and the turn goes on once decided (the decision answers what it came to). While an App tool call runs, a ' +
      'streamed turn also emits `tool_progress`, `tool_log` and `tool_elicitation_required` (answer it with POST ' +
      '…/elicitations/{elicitationId}); a turn not streamed declines such questions.',
    body: SendMessageBody,
    bodyLimitBytes: TURN_BODY_LIMIT_BYTES,
    idempotent: true,
    response: {
      status: 201,
      schema: TurnResultDto,
      description: 'The answer (201 when the conversation was created, else 200)',
    },
    errors: [
      {
        status: 400,
        description:
          'Invalid request (the field in `param`): `invalid_attachment`, `attachment_too_large`, `visibility_on_create_only`',
      },
      403,
      {
        status: 404,
        description:
          "Unknown Agent, model (`model_not_found`) or conversation (`conversation_not_found`: unknown or another user's, the same answer)",
      },
      { status: 409, description: '`idempotency_in_flight`' },
      {
        status: 422,
        description: '`idempotency_key_reused`: the Idempotency-Key was used for another message',
      },
      429,
      502,
      504,
    ],
  })
  @Post()
  async send(
    @Param('agentId') agentId: string,
    @Body() raw: unknown,
    @Headers('idempotency-key') idempotencyKeyHeader: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res() reply: FastifyReply,
  ) {
    const idempotencyKey = idempotencyKeyOf(idempotencyKeyHeader);
    const body = parseOrThrow(SendMessageBody, raw);
    // A turn that outlives its client is stopped by its owner's Stop instead (RunningTurns).
    const outlives = body.stream && body.continueOnDisconnect;
    const own = new AbortController();
    const signal = outlives ? own.signal : abortOnDisconnect(reply);
    let unregister = () => {};
    const request = turnRequest(agentId, body, caller, signal, idempotencyKey);
    if (!body.stream) return this.answer(request, reply);
    let sse: SseWriter | null = null;
    const emit = async (event: TurnEvent | NoticeEvent) => {
      if (outlives && event.event === 'conversation')
        unregister = this.running.start(event.data.conversationId, own);
      sse ??= SseWriter.open(reply, this.config.streamStallTimeoutMs);
      await sse.event(event.event === 'notice' ? event.name : event.event, event.data);
    };
    try {
      const answer = await this.turns.run(request, emit);
      if (answer.replayed) {
        void reply.header('idempotent-replayed', 'true');
        await emit({
          event: 'conversation',
          data: {
            conversationId: answer.conversationId,
            created: false,
            visibility: answer.visibility,
            userMessage: answer.userMessage,
          },
        });
      }
      await sse!.event('done', turnResult(answer));
    } catch (error) {
      if (!sse) throw error; // nothing streamed yet: a plain HTTP error
      const known = toErrorResponse(error);
      if (!known) this.logger.error({ err: error, agentId }, 'conversation stream failed');
      const writer: SseWriter = sse;
      if (!writer.closed && known?.status !== 499)
        await writer.event(
          'error',
          known?.body ?? {
            error: {
              type: 'api_error',
              code: 'internal_error',
              message: 'internal error; it has been logged',
            },
          },
        );
    } finally {
      unregister();
      (sse as SseWriter | null)?.end();
    }
  }

  /**
   * A non-streamed turn: its answer, or, when a tool call waits for the person's approval first, 202 with the calls
   * that wait; the turn then goes on in the background (its Stop still reaches it) and each decision answers what
   * it came to next.
   */
  private async answer(request: TurnRequest, reply: FastifyReply): Promise<void> {
    const background = new BackgroundTurn<TurnAnswer>();
    const own = new AbortController();
    let unregister = () => {};
    let started: Extract<TurnEvent, { event: 'conversation' }>['data'] | null = null;
    this.turns
      .run(
        { ...request, background, signal: AbortSignal.any([request.signal, own.signal]) },
        async (event) => {
          if (event.event !== 'conversation') return;
          started = event.data;
          unregister = this.running.start(event.data.conversationId, own);
        },
      )
      .then(
        (answer) => background.answered(answer),
        (error: unknown) => background.failed(error),
      )
      .finally(() => unregister());
    const state = await background.settled();
    if (state.status === 'failed') throw state.error;
    if (state.status === 'answered') {
      if (state.answer.replayed) void reply.header('idempotent-replayed', 'true');
      void reply.status(state.answer.created ? 201 : 200).send(turnResult(state.answer));
      return;
    }
    const conversation = started as Extract<TurnEvent, { event: 'conversation' }>['data'] | null;
    void reply.status(202).send({
      status: 'awaiting_approval',
      conversationId: conversation?.conversationId,
      created: conversation?.created,
      userMessage: conversation?.userMessage,
      pendingToolCalls: state.pendingToolCalls,
    });
  }
}

const turnRequest = (
  agentId: string,
  body: SendMessageBody,
  caller: Caller,
  signal: AbortSignal,
  idempotencyKey: string | undefined,
): TurnRequest => {
  const message =
    typeof body.message === 'string' || body.message === undefined
      ? { content: body.message ?? '', attachments: [] }
      : body.message;
  return {
    agentId,
    caller,
    conversationId: body.conversationId,
    content: message.content,
    attachments: message.attachments ?? [],
    ...(body.promptId !== undefined
      ? { prompt: { promptId: body.promptId, promptVersion: body.promptVersion } }
      : {}),
    visibility: body.visibility,
    parentMessageId: body.parentMessageId,
    model: body.model,
    stream: body.stream,
    idempotencyKey,
    signal,
  };
};
