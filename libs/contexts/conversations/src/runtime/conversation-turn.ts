// One turn of an Agent conversation (POST /llm/{agentId}/conversation), as a straight pipeline: access (the caller's
// conversation of this Agent, or a new one: its place, places/), the idempotency of a keyed turn (turn-idempotency.ts),
// the user's message posted first (so a turn cut short is never lost, nor shown as answered; its write overlaps the
// model call, and the answer is recorded after it), the context providers' sections (turn-providers.ts), compaction
// when the history outgrows its budget (turn-compaction.ts), the answer loop (answer-loop.ts), and the answer
// assembled and recorded with its provenance, complete or not (turn-answer.ts). The turn ends once its answer is in
// the log: the conversation's next reads, not the turn, wait for the read models (conversation-writes.ts).
// It runs as a direct service call from its controller (commands/conversation-turn/): a turn streams and is cut short by
// its client, so it is the module's one documented exception to sending a command (see conversations.module.ts).
// Over 300 lines on purpose: the turn's steps share its state and its abort; each step's own logic lives beside it.
import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Logger } from 'pino';
import { agentStreamId, UseAgent, type AgentView } from '#agents';
import { callerScope, ModelGateway, type CallScope } from '#model-gateway';
import { commandContext, type Caller } from '#access';
import { LOGGER, PLATFORM_CONFIG, type PlatformConfig, ValidationError } from '#kernel';
import type { ModelConfig } from '#model-providers';
import { AggregateRepository } from '#eventsourcing';
import { agentChatModel, agentSampling } from '../agent-model.js';
import { afterNextCheckPhase } from '../check-phases.js';
import type { HistoryMessage } from '../compaction/compaction-boundary.js';
import type { Visibility } from '../conversation-records.js';
import { AnswerInterrupted, answerLoop, type LoopResult } from './answer-loop.js';
import { TurnAttachments, type AttachmentInput } from './attachments.js';
import { ContextProviders, type ContextItem, type TurnContext } from './context-providers.js';
import type { ConversationPlace } from './places/conversation-place.js';
import { ConversationPlaces } from './places/conversation-places.js';
import { SourceBook } from './source-book.js';
import { NO_USAGE, recordedAnswer, turnAnswer, type TurnAnswer } from './turn-answer.js';
import { TurnCompaction } from './turn-compaction.js';
import { ToolApprovals } from './tool-approvals.js';
import { ToolCallGate } from './tool-call-gate.js';
import { ToolElicitations } from './tool-elicitations.js';
import type { BackgroundTurn } from './background-turn.js';
import type { TurnEmitter } from './turn-events.js';
import { TurnIdempotency, type TurnIds } from './turn-idempotency.js';
import { LibraryPrompts, type LibraryPromptRequest } from './library-prompt.js';
import { fitsWithoutCounting, promptBudget, promptMessages, toHistory } from './turn-prompt.js';
import { abandonTurn, afterAnswer, contributions, type Contributions } from './turn-providers.js';
import { turnSpan } from './turn-spans.js';

export interface TurnRequest {
  readonly agentId: string;
  readonly caller: Caller;
  readonly conversationId?: string | undefined;
  /** The user's message ('' when a library prompt alone is the message). */
  readonly content: string;
  readonly attachments: readonly AttachmentInput[];
  /** A prompt of the Agent's Space prompt library to start from (library-prompt.ts). */
  readonly prompt?: LibraryPromptRequest | undefined;
  readonly visibility?: Visibility | undefined;
  /** Starts a branch after this message of the conversation (null: before its first); absent: after its head. */
  readonly parentMessageId?: string | null | undefined;
  readonly model?: string | undefined;
  readonly stream: boolean;
  readonly idempotencyKey?: string | undefined;
  /** Aborted when the client disconnects: the model call ends, the turn is recorded as incomplete. */
  readonly signal: AbortSignal;
  /** A non-streamed turn's: what its tool calls waiting for approval and its end are told to (background-turn.ts). */
  readonly background?: BackgroundTurn | undefined;
}

@Injectable()
export class ConversationTurns {
  constructor(
    private readonly gateway: ModelGateway,
    private readonly places: ConversationPlaces,
    private readonly idempotency: TurnIdempotency,
    private readonly attachments: TurnAttachments,
    private readonly aggregates: AggregateRepository,
    private readonly contextProviders: ContextProviders,
    private readonly compaction: TurnCompaction,
    private readonly libraryPrompts: LibraryPrompts,
    private readonly queries: QueryBus,
    private readonly approvals: ToolApprovals,
    private readonly elicitations: ToolElicitations,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async run(asked: TurnRequest, emit: TurnEmitter): Promise<TurnAnswer> {
    const { caller } = asked;
    const agent = await this.queries.execute(new UseAgent(asked.agentId, caller));
    const model = agentChatModel(this.gateway, agent, asked.model);
    const prompted = asked.prompt
      ? await this.libraryPrompts.compose(agent, caller, asked.prompt, asked.content)
      : null;
    const request = prompted ? { ...asked, content: prompted.content, promptItem: prompted.item } : asked;
    const ids = this.idempotency.ids({ ...request, userId: caller.userId });
    if (request.conversationId !== undefined && request.visibility !== undefined)
      throw new ValidationError(
        'visibility_on_create_only',
        'visibility is chosen when a conversation is created; change it with PATCH …/conversation/{conversationId}',
        'visibility',
      );
    const place = await this.places.choose(
      { ...request, keyed: Boolean(request.idempotencyKey) },
      ids.conversationId,
    );
    // The turn in its span: its retrieval, tool calls and model attempts are the span's children.
    return turnSpan(agent, ids.conversationId, model, async () => {
      if (!request.idempotencyKey) return this.turn(request, agent, model, place, ids, emit);
      const prior = await this.idempotency.prior(place, ids, request.content);
      if ('replay' in prior) return prior.replay;
      const release = await this.idempotency.claim(ids);
      try {
        return await this.turn(request, agent, model, place, { ...ids, answerId: prior.answerId }, emit);
      } finally {
        await release();
      }
    });
  }

  // Over 100 lines on purpose: one turn's sequence (context, model call, tools, answer, records) shares its
  // state and its abort.
  private async turn(
    request: TurnRequest & { readonly promptItem?: ContextItem },
    agent: AgentView,
    model: ModelConfig,
    place: ConversationPlace,
    ids: TurnIds,
    emit: TurnEmitter,
  ): Promise<TurnAnswer> {
    const { caller } = request;
    const { conversationId, userMessageId: messageId, answerId } = ids;
    // Attachments and the history are read side by side; retrieval then runs while the user's message is written.
    const [attachments, history] = await Promise.all([
      this.attachments.resolve(agent.id, request.attachments, caller, (id) => place.message(id)),
      place.history(request.parentMessageId),
    ]);
    // A keyed retry of a turn whose question is already posted: the question is added below, once, and attempts
    // that ended incomplete are not part of the history the model reads. An unkeyed turn's ids are new: nothing to
    // look for (a long history is not walked for it).
    const earlier = request.idempotencyKey
      ? history.filter((message) => message.id !== messageId && message.replyTo !== messageId)
      : history;
    const { created, visibility } = place;
    const context = commandContext(caller);
    const scope: CallScope = { ...callerScope(caller, 'core', agent.id), conversationId };
    const sources = new SourceBook();
    const budget = promptBudget(
      agent.conversationTokenBudget,
      this.config.conversationTokenBudget,
      model.contextWindow,
    );
    const posting = new AbortController();
    // A streamed turn's client waits for its first delta: the providers' own model calls (memory extraction's) are
    // sent once the answer's request is written. A turn answered whole waits for them as well (their notices are part
    // of its answer): they are sent as soon as they are ready, ahead of the answer's.
    let askedAnswer = (): void => undefined;
    const answerAsked = request.stream
      ? new Promise<void>((resolve) => (askedAnswer = resolve))
      : Promise.resolve();
    // The library prompt the message starts from is in the answer's provenance beside what the tools load.
    const loaded: ContextItem[] = request.promptItem ? [request.promptItem] : [];
    const turn: TurnContext = {
      agent,
      caller,
      conversationId,
      query: request.content,
      messageId,
      answerId,
      visibility,
      keepsTraces: place.keepsTraces,
      // API-driven: a person chatting in the web app (a session) streams too, and keeps their memory.
      streamed: request.stream && !caller.session,
      signal: AbortSignal.any([request.signal, posting.signal]),
      answerAsked,
      sources,
      tokenShare: 0,
      recordItem: (item) => {
        if (!loaded.some((known) => known.kind === item.kind && known.id === item.id)) loaded.push(item);
      },
    };
    const contributing = contributions(this.contextProviders.all(), turn, budget);
    // Awaited below; until then a failure is held, not reported as unhandled.
    contributing.catch(() => undefined);
    // However the turn ends, each provider has ended its part: afterAnswer claimed it, or it is abandoned here (an
    // interrupted answer, a failed post or record: memory's extraction, under way or still to be sent, is aborted).
    try {
      const postedAt = new Date();
      // The user's message is written while the prompt is built and the model is called (its data keys' commit, in
      // the key store's thread, and its append overlap the call instead of preceding it): what the client is told,
      // and every tool the model asks for (each call is announced first), waits for it through `ordered`; the
      // answer is recorded only after it. A message that cannot be posted aborts the model call, and the turn fails
      // with the post's error, nothing recorded.
      const posted = place.postUserMessage(
        {
          messageId,
          answerId,
          content: request.content,
          attachments,
          at: postedAt,
          appendAfter: contributing,
          parentId: request.parentMessageId,
        },
        context,
      );
      const userMessage = { id: messageId, createdAt: postedAt.toISOString() };
      let told: Promise<void> = posted.then(
        () => emit({ event: 'conversation', data: { conversationId, created, visibility, userMessage } }),
        (error: unknown) => {
          posting.abort();
          throw error;
        },
      );
      const ordered: TurnEmitter = (event) => {
        told = told.then(() => emit(event));
        return told;
      };
      // Awaited below (and by the emits that follow); until then a failure is held, not reported as unhandled.
      posted.catch(() => undefined);
      told.catch(() => undefined);

      let contributed: Contributions = { sections: [], tools: [], contributors: [], items: new Map() };
      let checkpointId: string | null = null;
      let result: LoopResult = { content: '', finishReason: null, usage: NO_USAGE, steps: 0, toolCalls: [] };
      let interrupted: unknown = null;
      // From here on the user's message is kept once posted: whatever fails, the turn is recorded (incomplete)
      // before the error reaches the client.
      try {
        contributed = await contributing;
        const { sections, tools, contributors } = contributed;
        if (contributors.includes('knowledge'))
          ordered({ event: 'retrieval', data: { sources: sources.numbered() } }).catch(() => undefined);
        const prompted: HistoryMessage[] = [
          ...toHistory(earlier),
          {
            id: messageId,
            role: 'user',
            text: request.content,
            attachments: attachments.map((attachment) => ({ name: attachment.name, text: attachment.text })),
          },
        ];
        const current = place.checkpoint();
        // A prompt whose bytes fit the budget fits it in tokens: nothing to count, nothing to compact. A compaction
        // writes a checkpoint after the message: it waits for the post.
        const compacted = fitsWithoutCounting(sections, prompted, current, budget)
          ? { history: prompted, checkpoint: current }
          : await told.then(() =>
              this.compaction.compact({
                history: prompted,
                current,
                budget,
                sections,
                model,
                scope,
                signal: request.signal,
                save: (checkpoint) => place.saveCheckpoint(checkpoint, context),
                emit: ordered,
              }),
            );
        checkpointId = compacted.checkpoint?.checkpointId ?? null;
        const answering = answerLoop({
          gateway: this.gateway,
          scope,
          model,
          messages: promptMessages(sections, compacted.history, compacted.checkpoint),
          sampling: agentSampling(agent),
          tools,
          maxSteps: this.config.conversationMaxToolSteps,
          stream: request.stream,
          turn: { ...turn, tokenShare: Math.floor(budget / 2) },
          emit: ordered,
          gate: new ToolCallGate({
            place,
            context,
            approvals: this.approvals,
            owner: { agentId: agent.id, conversationId, userId: caller.userId },
            timeoutMs: this.config.toolApprovalTimeoutMs,
            emit: ordered,
            background: request.background,
            // A streamed turn has a person following it (the web app's chat, a client reading the events): a
            // tool's questions are put to them; elsewhere they are declined.
            session: {
              elicitations: this.elicitations,
              present: request.stream,
              sampling: { gateway: this.gateway, scope, model, ...this.config.mcpSampling },
            },
          }),
        });
        // The providers' own model calls (memory extraction's) go once the answer's request is written.
        if (request.stream) void afterNextCheckPhase().then(askedAnswer);
        result = await answering;
        // Every event told before the answer is recorded (an answer without deltas: the conversation's own).
        await told;
      } catch (error) {
        if (error instanceof AnswerInterrupted) {
          result = error.partial;
          interrupted = error.reason;
        } else interrupted = error;
      }
      // A message that was not posted is not answered: the post's error is the turn's. One that was is told before
      // anything that follows (an interrupted turn's error included).
      await posted;
      await told.catch(() => undefined);

      const outcome = {
        agent,
        model,
        messageId,
        answerId,
        result,
        complete: interrupted === null,
        sources,
        agentRevision: await this.aggregates.store.streamRevision(agentStreamId(agent.id)),
        checkpointId,
        contributors: contributed.contributors,
        contextItems: [...[...contributed.items.values()].flat(), ...loaded],
      };
      const answer = recordedAnswer(outcome);
      const answeredAt = new Date();
      // Recorded whatever happened to the client: an interrupted turn is kept, marked incomplete.
      const recorded = place.recordAnswer(answer, answeredAt, context);
      // A complete answer's after-work (memory extraction's candidates, its model call started with the turn) runs
      // while it is recorded; its writes, and its notices, wait for the record.
      const after =
        interrupted === null
          ? afterAnswer(
              this.contextProviders.all(),
              this.logger,
              turn,
              { answerId, answer: answer.content, status: answer.status, recorded },
              contributed.items,
              emit,
            )
          : null;
      // Awaited below; when the record fails, the turn fails with the record's error instead.
      after?.catch(() => undefined);
      await recorded;
      if (interrupted !== null) throw interrupted;
      const notices = await after!;
      return turnAnswer(
        outcome,
        answer,
        { conversationId, created, visibility, postedAt, answeredAt },
        notices,
      );
    } finally {
      askedAnswer();
      abandonTurn(this.contextProviders.all(), turn);
    }
  }
}
