// Regression replay (issue 25 §4): recorded conversation turns re-run against another model (or another retrieval
// configuration), read-only. A turn's prompt is rebuilt from the log as the turn saw it: the Agent's system prompt as
// of the turn (checked against the hash the answer recorded), the compacted summary and the history before the
// question (opened with their keys: erased messages are absent), the Knowledge passages the answer recorded (their
// text read from the cited document version's extracted text) — or, with `reRetrieve`, passages searched again with
// the given retrieval configuration (each passage with its document's version, as a live turn's). The memories and
// Skill versions the prompt held are re-sent as recorded; the App tools the answer called answer with their recorded
// results (recorded-tool-calls.ts). Every model call — the answer's, its tool steps', and the
// searches' embeddings and reranks — goes through the gateway as the platform's own usage, recorded under the
// `replay` operation; nothing is appended to any conversation.
// Over 300 lines on purpose: rebuilding a turn's prompt from the log and re-running it is one read-only
// procedure, with its checks beside it.
import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { newId, PLATFORM_CONFIG, type EventEnvelope, type PlatformConfig } from '#kernel';
import { EVENT_STORE, type EventStore } from '#event-store';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { ContentCipher } from '#key-store';
import { agentAsOf } from '#agents';
import { PLATFORM_USAGE_KEY, platformCaller, type Caller } from '#access';
import { ModelGateway, type CallScope } from '#model-gateway';
import { callCost } from '#usage';
import {
  AnswerInterrupted,
  answerLoop,
  citationMarkers,
  ContextProviders,
  conversationStreamId,
  KnowledgeContextProvider,
  promptBudget,
  SourceBook,
  type Citation,
  type ContextTool,
  type ConversationEvent,
  type LoopResult,
  type TurnContext,
} from '#conversations';
import {
  recordedPassageText,
  recordedPrompt,
  selectRecordedTurns,
  type Envelope,
  type PassageSource,
  type Recorded,
} from './recorded-turns.js';
import { recordedToolCalls, replayedTools } from './recorded-tool-calls.js';
import type {
  CitedRange,
  ReplayedAnswer,
  ReplayedTurn,
  ReplayOptions,
  ReplayReport,
  ReplaySelection,
} from './replay-report.types.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const rangeKey = (range: CitedRange) => `${range.documentId}:${range.start}-${range.end}`;
const toRange = (
  citation: Pick<Citation, 'documentId' | 'documentName' | 'documentVersion' | 'start' | 'end'>,
): CitedRange => ({
  documentId: citation.documentId,
  documentName: citation.documentName,
  documentVersion: citation.documentVersion,
  start: citation.start,
  end: citation.end,
});

@Injectable()
export class TurnReplay {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly cipher: ContentCipher,
    private readonly gateway: ModelGateway,
    private readonly providers: ContextProviders,
    private readonly knowledge: KnowledgeContextProvider,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async replay(selection: ReplaySelection, options: ReplayOptions): Promise<ReplayReport> {
    const model = this.gateway.resolve(options.model, 'chat');
    const turns: ReplayedTurn[] = [];
    for (const recorded of await selectRecordedTurns(this.eventStore, selection))
      turns.push(await this.replayTurn(recorded, options));
    const replayed = turns.filter((turn) => turn.new !== null);
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    return {
      generatedAt: new Date().toISOString(),
      model: model.key,
      retrieval: options.reRetrieve ? 're-retrieved' : 'recorded',
      turns,
      totals: {
        turns: turns.length,
        replayed: replayed.length,
        citationsKept: sum(turns.map((turn) => turn.citationsKept.length)),
        citationsLost: sum(turns.map((turn) => turn.citationsLost.length)),
        citationsAdded: sum(turns.map((turn) => turn.citationsAdded.length)),
        oldTokens: sum(replayed.map((turn) => turn.old.inputTokens + turn.old.outputTokens)),
        newTokens: sum(replayed.map((turn) => turn.new!.inputTokens + turn.new!.outputTokens)),
        oldCostUsd: round(sum(replayed.map((turn) => turn.old.costUsd ?? 0))),
        newCostUsd: round(sum(replayed.map((turn) => turn.new!.costUsd ?? 0))),
      },
    };
  }

  // Over 100 lines on purpose: one recorded turn rebuilt and re-run step by step (see the file's header); the
  // steps share its state.
  private async replayTurn(recorded: Recorded, options: ReplayOptions): Promise<ReplayedTurn> {
    const { conversationId, messageId, replyTo, provenance, citations, usage } = recorded.data;
    const events = (await this.eventStore.readStream(
      conversationStreamId(conversationId),
    )) as unknown as EventEnvelope<ConversationEvent['type'], ConversationEvent['data']>[];
    const started = events.find((event) => event.type === 'ConversationStarted')?.data as
      Envelope<'ConversationStarted'>['data'] | undefined;
    const agentId = started?.agentId ?? '';
    const oldModel = this.gateway.registry.get(provenance.model);
    const calls = await recordedToolCalls(this.cipher, events, messageId);
    const old: ReplayedAnswer = {
      model: provenance.model,
      content: await this.cipher.open(recorded.data.content),
      citations: citations.map(toRange),
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      costUsd: oldModel?.pricing ? callCost(oldModel.pricing, usage) : null,
      ...(calls.length > 0
        ? {
            toolCalls: calls.map((call) => ({
              name: call.name,
              arguments: call.arguments ?? '',
              ok: call.ok === true,
            })),
          }
        : {}),
    };
    const question = events.find(
      (event) =>
        event.type === 'UserMessagePosted' && (event.data as { messageId: string }).messageId === replyTo,
    ) as Envelope<'UserMessagePosted'> | undefined;
    const base = {
      conversationId,
      messageId,
      agentId,
      at: recorded.metadata.occurredAt,
      old,
      retrieval: options.reRetrieve ? ('re-retrieved' as const) : ('recorded' as const),
    };
    const failed = (error: string, questionText: string | null = null): ReplayedTurn => ({
      ...base,
      question: questionText,
      new: null,
      error,
      citationsKept: [],
      citationsLost: [],
      citationsAdded: [],
      tokenDifference: 0,
      costDifferenceUsd: null,
      promptVerified: false,
      passagesMissing: 0,
      contextItemsReplayed: [],
      contextItemsNotReplayed: [],
    });
    if (!question) return failed('the question of this answer is not in its conversation');
    const questionText = await this.cipher.open(question.data.content);
    if (questionText === null) return failed('the question was erased (its key destroyed)');
    const askedAt = new Date(question.metadata.occurredAt);
    const agent = await agentAsOf(this.eventStore, agentId, askedAt);
    if (!agent)
      return failed(`Agent '${agentId}' did not exist at ${question.metadata.occurredAt}`, questionText);

    const chatModel = this.gateway.resolve(options.model, 'chat');
    const maxSteps = this.config.conversationMaxToolSteps;
    const signal = options.signal ?? AbortSignal.timeout(chatModel.timeoutMs * maxSteps);
    const budget = promptBudget(
      agent.conversationTokenBudget,
      this.config.conversationTokenBudget,
      chatModel.contextWindow,
    );
    const book = new SourceBook();
    const turn: TurnContext = {
      agent,
      caller: replayCaller(),
      conversationId,
      query: questionText,
      messageId: replyTo,
      answerId: messageId,
      visibility: 'normal',
      // Nothing of a replay outlives it: no memories, no sandbox.
      keepsTraces: false,
      streamed: false,
      // Every model call of the replay (its answer, tool steps and searches) is usage under `replay`.
      operation: 'replay',
      signal,
      answerAsked: Promise.resolve(),
      sources: book,
      tokenShare: Math.floor(budget / 2),
      recordItem: () => undefined,
    };
    let sources: PassageSource[];
    let passagesMissing = 0;
    if (options.reRetrieve) {
      try {
        // As a live turn's retrieval (each passage with its document's version), with the replay's configuration.
        sources = await this.knowledge.retrieve(turn, questionText, options.reRetrieve);
      } catch (error) {
        return failed(`searching the Knowledge again failed: ${(error as Error).message}`, questionText);
      }
    } else {
      sources = [];
      for (const source of provenance.sources) {
        const text = await recordedPassageText(this.eventStore, this.blobs, source);
        if (text === null) passagesMissing += 1;
        const { index: _index, ...recordedSource } = source;
        sources.push({
          ...recordedSource,
          text: text ?? '(the passage is no longer stored: its document was deleted)',
        });
      }
    }
    book.add(sources);
    // Each provider's section as the recorded prompt held it, in the providers' order (as a live turn's).
    const items = provenance.contextItems ?? [];
    const contributors = new Set(provenance.contextProviders);
    if (options.reRetrieve) contributors.add('knowledge');
    const sections: string[] = [agent.systemPrompt];
    const tools: ContextTool[] = [];
    const replayedItems: string[] = [];
    const notReplayed: string[] = [];
    for (const provider of this.providers.all()) {
      const own = items.filter((item) => providerOfItem(item.kind) === provider.name);
      if (!provider.replay || (!contributors.has(provider.name) && own.length === 0)) continue;
      const contribution = await provider.replay(
        { ...turn, tokenShare: Math.floor(budget * provider.share) },
        own,
        askedAt,
      );
      if (!contribution) continue;
      if (contribution.system) sections.push(contribution.system);
      tools.push(...contribution.tools);
      notReplayed.push(...contribution.missing);
      const missing = new Set(contribution.missing.map((line) => line.split(' ')[0]));
      for (const item of own) {
        const name = `${item.kind}:${item.id}@${item.version}`;
        if (!missing.has(name)) replayedItems.push(name);
      }
    }
    const recordedTools = replayedTools(calls, new Set(tools.map((tool) => tool.definition.function.name)));
    tools.push(...recordedTools);
    const fromRecording = new Set(recordedTools.map((tool) => tool.definition.function.name));
    const messages = await recordedPrompt(
      this.cipher,
      events,
      question,
      sections,
      provenance.checkpointId,
      questionText,
    );
    const scope: CallScope = {
      apiKey: PLATFORM_USAGE_KEY,
      userId: 'system',
      agentId,
      surface: 'core',
      correlationId: `replay-${newId('rpl')}`,
      operation: 'replay',
    };
    let result: LoopResult;
    try {
      result = await answerLoop({
        gateway: this.gateway,
        scope,
        model: chatModel,
        messages,
        sampling: {
          ...(provenance.sampling.temperature !== null
            ? { temperature: provenance.sampling.temperature }
            : {}),
          ...(provenance.sampling.topP !== null ? { top_p: provenance.sampling.topP } : {}),
          ...(provenance.sampling.topK !== null ? { top_k: provenance.sampling.topK } : {}),
        },
        tools,
        maxSteps,
        stream: false,
        turn,
        emit: async () => undefined,
        operation: 'replay',
      });
    } catch (error) {
      const reason = error instanceof AnswerInterrupted ? error.reason : error;
      return failed(`the model call failed: ${(reason as Error).message}`, questionText);
    }
    const content = result.content;
    const newCitations = citationMarkers(content).flatMap((index) => {
      const source = book.get(index);
      return source ? [toRange(source)] : [];
    });
    const fresh: ReplayedAnswer = {
      model: chatModel.key,
      content,
      citations: newCitations,
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
      costUsd: chatModel.pricing ? callCost(chatModel.pricing, result.usage) : null,
      steps: result.steps,
      toolCalls: result.toolCalls.map(({ name, arguments: args, ok }) => ({
        name,
        arguments: args,
        ok,
        ...(fromRecording.has(name) ? { recorded: true } : {}),
      })),
    };
    const newKeys = new Set(newCitations.map(rangeKey));
    const oldKeys = new Set(old.citations.map(rangeKey));
    return {
      ...base,
      question: questionText,
      new: fresh,
      error: null,
      citationsKept: old.citations.filter((range) => newKeys.has(rangeKey(range))),
      citationsLost: old.citations.filter((range) => !newKeys.has(rangeKey(range))),
      citationsAdded: newCitations.filter((range) => !oldKeys.has(rangeKey(range))),
      tokenDifference: fresh.inputTokens + fresh.outputTokens - (old.inputTokens + old.outputTokens),
      costDifferenceUsd:
        fresh.costUsd !== null && old.costUsd !== null ? round(fresh.costUsd - old.costUsd) : null,
      promptVerified: sha256(agent.systemPrompt) === provenance.systemPromptSha256,
      passagesMissing,
      contextItemsReplayed: replayedItems,
      contextItemsNotReplayed: notReplayed,
    };
  }
}

const round = (usd: number): number => Math.round(usd * 1e9) / 1e9;

/** The platform as the caller of a replay's searches: its own principal, for nobody's key (as Knowledge's calls). */
const replayCaller = (): Caller => platformCaller('replay', `replay-${newId('rpl')}`);

/** The provider that puts a recorded item's kind in the prompt. */
const providerOfItem = (kind: string): string => (kind === 'skill' ? 'skills' : kind);
