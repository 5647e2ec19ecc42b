// One turn of an Agent conversation (POST /llm/{agentId}/conversation): access (the caller's conversation of this
// Agent, or a new one), the user's message posted first (so a turn cut short is never lost, nor shown as answered),
// the context providers' sections, compaction when the history outgrows its budget, the answer loop, citations checked
// against the sources this turn retrieved, and the answer recorded with its provenance, complete or not.
// Over 300 lines on purpose: the one place that orders a turn's steps, so that the stored and incognito paths, the
// streamed and plain answers, keyed retries and interrupted turns cannot drift apart (compaction is turn-compaction.ts).
import { Inject, Injectable } from '@nestjs/common';
import type { AgentView } from '#agents';
import { accessibleAgent, agentStreamId } from '#agents';
import type { CommandContext } from '#eventsourcing';
import { callerScope, ModelGateway, type CallScope } from '#gateway';
import { commandContext, type Caller } from '#identity';
import {
  ConflictError,
  newId,
  PLATFORM_CONFIG,
  PlatformError,
  sha256,
  ValidationError,
  type PlatformConfig,
} from '#kernel';
import type { ModelConfig } from '#models';
import { citationMarkers, dropUnknownMarkers } from './grounding.js';
import { CommandRunner, LOGGER } from '#platform';
import type { Logger } from 'pino';
import { READ_STORE, type ReadStore } from '#read-store';
import { agentChatModel, agentSampling } from '../agent-model.js';
import type { Checkpoint, HistoryMessage } from '../compaction/compaction-boundary.js';
import { ConversationNotFoundError } from '../conversation.decider.js';
import type { Citation } from '../conversation.events.js';
import type {
  ConversationRecord,
  NewAnswer,
  PlainAttachment,
  PlainMessage,
  Visibility,
} from '../conversation-records.js';
import { IncognitoConversations, type IncognitoConversation } from '../incognito-conversations.js';
import { StoredConversations } from '../stored-conversations.js';
import { AnswerInterrupted, answerLoop, type LoopResult } from './answer-loop.js';
import { TurnAttachments, type AttachmentInput } from './attachments.js';
import {
  ContextProviders,
  type AnsweredTurn,
  type ContextItem,
  type ContextProvider,
  type ContextTool,
  type TurnContext,
  type TurnNotice,
} from './context-providers.js';
import { SourceBook } from './source-book.js';
import { TurnCompaction } from './turn-compaction.js';
import type { TurnEmitter } from './turn-events.js';
import { promptMessages, sectionTokens, toHistory } from './turn-prompt.js';

export interface TurnRequest {
  readonly agentId: string;
  readonly caller: Caller;
  readonly conversationId?: string | undefined;
  readonly content: string;
  readonly attachments: readonly AttachmentInput[];
  readonly visibility?: Visibility | undefined;
  readonly model?: string | undefined;
  readonly stream: boolean;
  readonly idempotencyKey?: string | undefined;
  /** Aborted when the client disconnects: the model call ends, the turn is recorded as incomplete. */
  readonly signal: AbortSignal;
}

export type AnswerCitation = Citation & {
  readonly summary?: { readonly nodeId: string; readonly level: number; readonly text: string } | null;
};

export interface TurnAnswer {
  readonly conversationId: string;
  readonly created: boolean;
  readonly replayed: boolean;
  /** The conversation's visibility (what a replayed stream's `conversation` event says). */
  readonly visibility: Visibility;
  readonly userMessage: { readonly id: string; readonly createdAt: string };
  readonly message: {
    readonly id: string;
    readonly role: 'assistant';
    readonly content: string;
    readonly citations: readonly AnswerCitation[];
    readonly model: string;
    readonly finishReason: string | null;
    readonly status: 'complete' | 'incomplete';
    readonly usage: { inputTokens: number; cachedInputTokens: number; outputTokens: number };
    readonly createdAt: string;
  };
}

/** Where the turn's conversation lives: the log, or this process's memory. */
type Place =
  | { readonly kind: 'stored'; readonly record: ConversationRecord | null }
  | { readonly kind: 'incognito'; readonly live: IncognitoConversation };

const NO_USAGE = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
/** Answers a keyed turn may be retried for after ending incomplete. */
const MAX_ATTEMPTS = 10;

interface TurnIds {
  readonly seed: string;
  readonly conversationId: string;
  readonly userMessageId: string;
  /** Chosen anew when a keyed retry answers a turn that ended incomplete. */
  answerId: string;
}

const derivedId = (seed: string, prefix: string, what: string): string =>
  `${prefix}_${sha256(`${seed}:${what}`).slice(0, 32)}`;

/** Tokens of a model's window kept free for the answer. */
const ANSWER_RESERVE = 0.25;

@Injectable()
export class ConversationTurns {
  /** Idempotency keys whose turn is running in this process (a concurrent retry is 409). */
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly gateway: ModelGateway,
    private readonly stored: StoredConversations,
    private readonly incognito: IncognitoConversations,
    private readonly attachments: TurnAttachments,
    private readonly commands: CommandRunner,
    private readonly contextProviders: ContextProviders,
    private readonly compaction: TurnCompaction,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async run(request: TurnRequest, emit: TurnEmitter): Promise<TurnAnswer> {
    const { caller } = request;
    const agent = await accessibleAgent(this.readStore, request.agentId, caller);
    const model = agentChatModel(this.gateway, agent, request.model);
    const ids = this.ids(request);
    if (request.conversationId !== undefined && request.visibility !== undefined)
      throw new ValidationError(
        'visibility_on_create_only',
        'visibility is chosen when a conversation is created; change it with PATCH …/conversation/{conversationId}',
        'visibility',
      );
    const place = await this.place(request, agent, ids.conversationId);
    if (request.idempotencyKey) {
      const prior = await this.prior(place, ids, request.content);
      if ('replay' in prior) return prior.replay;
      ids.answerId = prior.answerId;
      if (this.inFlight.has(ids.seed))
        throw new ConflictError(
          'idempotency_in_flight',
          'a request with this Idempotency-Key is still running',
        );
      this.inFlight.add(ids.seed);
    }
    try {
      return await this.turn(request, agent, model, place, ids, emit);
    } finally {
      if (request.idempotencyKey) this.inFlight.delete(ids.seed);
    }
  }

  private async turn(
    request: TurnRequest,
    agent: AgentView,
    model: ModelConfig,
    place: Place,
    ids: TurnIds,
    emit: TurnEmitter,
  ): Promise<TurnAnswer> {
    const { caller } = request;
    const conversationId = ids.conversationId;
    // Attachments and the history are read side by side; retrieval then runs while the user's message is written.
    const [attachments, history] = await Promise.all([
      this.attachments.resolve(agent.id, request.attachments, caller),
      this.history(place, conversationId),
    ]);
    // A keyed retry of a turn whose question is already posted: the question is added below, once, and attempts
    // that ended incomplete are not part of the history the model reads.
    const earlier = history.filter(
      (message) => message.id !== ids.userMessageId && message.replyTo !== ids.userMessageId,
    );
    const created = place.kind === 'stored' ? place.record === null : place.live.messages.length === 0;
    const visibility: Visibility =
      place.kind === 'incognito'
        ? 'incognito'
        : (place.record?.visibility ?? (request.visibility === 'private' ? 'private' : 'normal'));
    const context = commandContext(caller);
    const scope: CallScope = { ...callerScope(caller, 'core', agent.id), conversationId };
    const sources = new SourceBook();
    const budget = Math.max(
      256,
      Math.min(
        agent.conversationTokenBudget ?? this.config.conversationTokenBudget,
        Math.floor(model.contextWindow * (1 - ANSWER_RESERVE)),
      ),
    );
    const posting = new AbortController();
    const loaded: ContextItem[] = [];
    const turn: TurnContext = {
      agent,
      caller,
      conversationId,
      query: request.content,
      messageId: ids.userMessageId,
      answerId: ids.answerId,
      visibility,
      streamed: request.stream,
      signal: AbortSignal.any([request.signal, posting.signal]),
      sources,
      tokenShare: 0,
      recordItem: (item) => {
        if (!loaded.some((known) => known.kind === item.kind && known.id === item.id)) loaded.push(item);
      },
    };
    const contributing = this.contributions(turn, budget);
    // Awaited below; until then a failure is held, not reported as unhandled.
    contributing.catch(() => undefined);
    const postedAt = new Date();
    try {
      await this.post(place, request, ids, attachments, context, postedAt);
    } catch (error) {
      posting.abort();
      throw error;
    }
    await emit({
      event: 'conversation',
      data: {
        conversationId,
        created,
        visibility,
        userMessage: { id: ids.userMessageId, createdAt: postedAt.toISOString() },
      },
    });

    let contributors: readonly string[] = [];
    let items: ReadonlyMap<ContextProvider, readonly ContextItem[]> = new Map();
    let checkpointId: string | null = null;
    let result: LoopResult = { content: '', finishReason: null, usage: NO_USAGE, steps: 0, toolCalls: [] };
    let interrupted: unknown = null;
    // From here on the user's message is in the log: whatever fails, the turn is recorded (incomplete) before the
    // error reaches the client.
    try {
      const contributed = await contributing;
      ({ contributors, items } = contributed);
      const { sections, tools } = contributed;
      if (contributors.includes('knowledge'))
        await emit({ event: 'retrieval', data: { sources: sources.numbered() } });

      const prompted: HistoryMessage[] = [
        ...toHistory(earlier),
        {
          id: ids.userMessageId,
          role: 'user',
          text: request.content,
          attachments: attachments.map((attachment) => ({ name: attachment.name, text: attachment.text })),
        },
      ];
      const compacted = await this.compaction.compact({
        history: prompted,
        current: this.checkpointOf(place),
        budget: budget - (await sectionTokens(sections)),
        model,
        scope,
        signal: request.signal,
        save: async (checkpoint) => {
          if (place.kind === 'incognito') this.incognito.compact(place.live, checkpoint);
          else await this.stored.compact(conversationId, checkpoint, context);
        },
        emit,
      });
      checkpointId = compacted.checkpoint?.checkpointId ?? null;
      result = await answerLoop({
        gateway: this.gateway,
        scope,
        model,
        messages: promptMessages(sections, compacted.history, compacted.checkpoint),
        sampling: agentSampling(agent),
        tools,
        maxSteps: this.config.conversationMaxToolSteps,
        stream: request.stream,
        turn: { ...turn, tokenShare: Math.floor(budget / 2) },
        emit,
      });
    } catch (error) {
      if (error instanceof AnswerInterrupted) {
        result = error.partial;
        interrupted = error.reason;
      } else interrupted = error;
    }

    const known = sources.indexes();
    const content = dropUnknownMarkers(result.content, known);
    const citations: AnswerCitation[] = citationMarkers(content)
      .filter((index) => known.has(index))
      .map((index) => sources.get(index)!);
    const answer: NewAnswer = {
      messageId: ids.answerId,
      replyTo: ids.userMessageId,
      content,
      citations,
      status: interrupted === null ? 'complete' : 'incomplete',
      finishReason: result.finishReason,
      usage: result.usage,
      provenance: {
        model: model.key,
        provider: model.provider,
        sampling: { temperature: agent.temperature, topP: agent.topP, topK: agent.topK },
        agentRevision: await this.commands.store.streamRevision(agentStreamId(agent.id)),
        systemPromptSha256: sha256(agent.systemPrompt),
        sources: sources.all(),
        toolCalls: result.toolCalls,
        steps: result.steps,
        checkpointId,
        contextProviders: [...contributors],
        ...(items.size > 0 || loaded.length > 0
          ? { contextItems: [...[...items.values()].flat(), ...loaded] }
          : {}),
      },
    };
    const answeredAt = new Date();
    // Recorded whatever happened to the client: an interrupted turn is kept, marked incomplete.
    if (place.kind === 'incognito') this.incognito.recordAnswer(place.live, answer, answeredAt);
    else await this.stored.recordAnswer(conversationId, answer, context);
    if (interrupted !== null) throw interrupted;
    const notices = await this.afterAnswer(
      turn,
      { answerId: ids.answerId, answer: content, status: answer.status },
      items,
      emit,
    );
    const summary = agent.includeAiSummary ? sources.summary : null;
    return {
      conversationId,
      created,
      replayed: false,
      visibility,
      userMessage: { id: ids.userMessageId, createdAt: postedAt.toISOString() },
      message: {
        id: ids.answerId,
        role: 'assistant',
        content,
        citations: citations.map((citation) => ({
          ...citation,
          ...(agent.includeAiSummary
            ? {
                summary:
                  summary && summary.documentIds.includes(citation.documentId)
                    ? { nodeId: summary.nodeId, level: summary.level, text: summary.text }
                    : null,
              }
            : {}),
        })),
        model: model.key,
        finishReason: result.finishReason,
        status: answer.status,
        usage: result.usage,
        createdAt: answeredAt.toISOString(),
        ...notices,
      },
    };
  }

  /** Each provider's section, tools and items, in the providers' order (the order sources are numbered in). */
  private async contributions(turn: TurnContext, budget: number) {
    const sections: string[] = [turn.agent.systemPrompt];
    const tools: ContextTool[] = [];
    const contributors: string[] = [];
    const items = new Map<ContextProvider, readonly ContextItem[]>();
    for (const provider of this.contextProviders.all()) {
      const contribution = await provider.contribute({
        ...turn,
        tokenShare: Math.floor(budget * provider.share),
      });
      if (!contribution) continue;
      contributors.push(provider.name);
      if (contribution.system) sections.push(contribution.system);
      tools.push(...contribution.tools);
      if (contribution.items?.length) items.set(provider, contribution.items);
    }
    return { sections, tools, contributors, items };
  }

  /**
   * The providers' work once the answer is recorded (memory extraction), in order; each may add a field to the message
   * (and a streamed event of that name). A provider that fails there is logged out of the way: the answer stands.
   */
  private async afterAnswer(
    turn: TurnContext,
    answered: Omit<AnsweredTurn, 'items'>,
    items: ReadonlyMap<ContextProvider, readonly ContextItem[]>,
    emit: TurnEmitter,
  ): Promise<Record<string, unknown>> {
    const notices: Record<string, unknown> = {};
    for (const provider of this.contextProviders.all()) {
      if (!provider.afterAnswer) continue;
      let notice: TurnNotice | null = null;
      try {
        notice = await provider.afterAnswer(turn, { ...answered, items: items.get(provider) ?? [] });
      } catch (error) {
        this.logger.warn(
          { provider: provider.name, conversationId: turn.conversationId, err: errorSummary(error) },
          'a context provider failed after the answer',
        );
      }
      if (!notice) continue;
      notices[notice.field] = notice.value;
      await emit({ event: 'notice', name: notice.field, data: notice.value });
    }
    return notices;
  }

  /** Ids of the turn: random, or derived from the Idempotency-Key (so a retry names the same conversation and messages). */
  private ids(request: TurnRequest): TurnIds {
    if (!request.idempotencyKey)
      return {
        seed: '',
        conversationId: request.conversationId ?? newId('cnv'),
        userMessageId: newId('msg'),
        answerId: newId('msg'),
      };
    const seed = sha256([request.caller.userId, request.agentId, request.idempotencyKey].join('\u0000'));
    const derive = (prefix: string, what: string) => derivedId(seed, prefix, what);
    return {
      seed,
      conversationId: request.conversationId ?? derive('cnv', 'conversation'),
      userMessageId: derive('msg', 'user'),
      answerId: derive('msg', 'answer'),
    };
  }

  private async place(request: TurnRequest, agent: AgentView, conversationId: string): Promise<Place> {
    const { userId } = request.caller;
    if (request.conversationId !== undefined) {
      const live = this.incognito.find(conversationId, userId, agent.id);
      if (live) return { kind: 'incognito', live };
      const record = await this.stored.find(conversationId, userId, agent.id);
      if (!record) throw new ConversationNotFoundError(conversationId);
      return { kind: 'stored', record };
    }
    if (request.visibility === 'incognito') {
      const live = this.incognito.find(conversationId, userId, agent.id);
      if (live) return { kind: 'incognito', live };
      this.incognito.start(conversationId, agent.id, userId, titleOf(request.content), new Date());
      return { kind: 'incognito', live: this.incognito.find(conversationId, userId, agent.id)! };
    }
    // A keyed retry of a creation finds the conversation its first try started.
    const record = request.idempotencyKey ? await this.stored.find(conversationId, userId, agent.id) : null;
    return { kind: 'stored', record };
  }

  /**
   * What a keyed retry finds: the turn's complete answer is replayed; the same key with another message is 422; a
   * turn that ended incomplete (the model failed, a limit refused it, the client left) is answered again under the
   * next answer id, so the retry completes it instead of replaying an empty answer.
   */
  private async prior(
    place: Place,
    ids: TurnIds,
    content: string,
  ): Promise<{ readonly replay: TurnAnswer } | { readonly answerId: string }> {
    const record = place.kind === 'incognito' ? place.live.record : place.record;
    if (!record) return { answerId: ids.answerId };
    const find = async (id: string): Promise<PlainMessage | null> =>
      place.kind === 'incognito'
        ? (place.live.messages.find((message) => message.id === id) ?? null)
        : this.stored.message(record.id, id);
    const question = await find(ids.userMessageId);
    if (!question) return { answerId: ids.answerId };
    if (question.content !== null && question.content !== content)
      throw new PlatformError(
        'unprocessable',
        'idempotency_key_reused',
        'this Idempotency-Key was used for another message; use a new key for a new turn',
        'Idempotency-Key',
      );
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const answerId = attempt === 0 ? ids.answerId : derivedId(ids.seed, 'msg', `answer:${attempt}`);
      const answer = await find(answerId);
      if (!answer) return { answerId };
      if (answer.status !== 'complete') continue;
      return {
        replay: {
          conversationId: record.id,
          created: false,
          replayed: true,
          visibility: record.visibility,
          userMessage: { id: question.id, createdAt: question.createdAt },
          message: {
            id: answer.id,
            role: 'assistant',
            content: answer.content ?? '',
            citations: answer.citations,
            model: answer.model ?? '',
            finishReason: answer.finishReason,
            status: answer.status,
            usage: answer.usage ?? NO_USAGE,
            createdAt: answer.createdAt,
          },
        },
      };
    }
    throw new ConflictError(
      'idempotency_attempts_exhausted',
      `this turn failed ${MAX_ATTEMPTS} times under this Idempotency-Key; send it with a new key`,
    );
  }

  private async history(place: Place, conversationId: string): Promise<PlainMessage[]> {
    if (place.kind === 'incognito') return [...place.live.messages];
    if (!place.record) return [];
    const checkpoint = place.record.checkpoint;
    return this.stored.history(
      conversationId,
      checkpoint?.summary != null ? checkpoint.throughMessageId : null,
    );
  }

  private checkpointOf(place: Place): (Checkpoint & { checkpointId: string }) | null {
    const checkpoint = place.kind === 'incognito' ? place.live.record.checkpoint : place.record?.checkpoint;
    if (!checkpoint || checkpoint.summary === null) return null;
    return { ...checkpoint, summary: checkpoint.summary };
  }

  private async post(
    place: Place,
    request: TurnRequest,
    ids: { conversationId: string; userMessageId: string },
    attachments: readonly PlainAttachment[],
    context: CommandContext,
    at: Date,
  ): Promise<void> {
    if (place.kind === 'incognito') {
      this.incognito.postUserMessage(place.live, ids.userMessageId, request.content, attachments, at);
      return;
    }
    const visibility = request.visibility === 'private' ? 'private' : 'normal';
    await this.stored.postUserMessage(
      {
        conversationId: ids.conversationId,
        agentId: request.agentId,
        userId: request.caller.userId,
        start: place.record
          ? null
          : { apiKeyId: request.caller.apiKey.id, visibility, title: titleOf(request.content) },
        messageId: ids.userMessageId,
        content: request.content,
        attachments,
      },
      context,
    );
  }
}

/** An error as a log line may name it: its class and code, never its message (it may quote the conversation). */
const errorSummary = (error: unknown) => ({
  name: error instanceof Error ? error.name : typeof error,
  code: error instanceof PlatformError ? error.code : undefined,
});

/** Characters of a message read for its title: enough for 80 after collapsing a long run of whitespace. */
const TITLE_SCAN = 4_096;

/** A conversation's first title: its first message, on one line, cut at 80 characters. */
export const titleOf = (content: string): string => {
  // Only the head of a message can make the title: a 200,000-character message is not scanned whole.
  const line = content.slice(0, TITLE_SCAN).replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${Array.from(line).slice(0, 79).join('')}…` : line || 'New conversation';
};
