// Regression replay (issue 25 §4): recorded conversation turns re-run against another model (or another retrieval
// configuration), read-only. A turn's prompt is rebuilt from the log as the turn saw it: the Agent's system prompt as
// of the turn (checked against the hash the answer recorded), the compacted summary and the history before the
// question (opened with their keys: erased messages are absent), the Knowledge passages the answer recorded (their
// text read from the cited document version's extracted text) — or, with `reRetrieve`, passages searched again with
// the given retrieval configuration. The memories and Skill versions the prompt held are listed in the report, not
// re-sent. The model is called through the gateway as the platform's own usage, recorded under the `replay`
// operation; nothing is appended to any conversation.
import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { newId, type EventEnvelope } from '#kernel';
import { EVENT_STORE, type EventStore } from '#event-store';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { ContentCipher } from '#key-store';
import { agentAsOf } from '#agents';
import type { ApiKeyView, Caller } from '#identity';
import { ModelGateway, type CallScope } from '#model-gateway';
import { callCost } from '#usage';
import { SearchKnowledge } from '#knowledge';
import { citationMarkers, conversationStreamId, type Citation, type ConversationEvent } from '#conversations';
import {
  recordedPassageText,
  recordedPrompt,
  selectRecordedTurns,
  type Envelope,
  type PassageSource,
  type Recorded,
} from './recorded-turns.js';
import type {
  CitedRange,
  ReplayedAnswer,
  ReplayedTurn,
  ReplayOptions,
  ReplayReport,
  ReplaySelection,
} from './replay-report.types.js';

/** The platform's own key: replays work for nobody's key (as Knowledge's own calls). */
const REPLAY_KEY = {
  id: 'system',
  name: 'platform',
  ownerUserId: 'system',
  keyHash: '',
  keyPrefix: '',
  agentAccess: { kind: 'all' },
  isAdmin: true,
  usageLimit: null,
  bootstrap: false,
  revoked: false,
  revokedAt: null,
  createdAt: '',
  updatedAt: '',
} satisfies ApiKeyView;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const rangeKey = (range: CitedRange) => `${range.documentId}:${range.start}-${range.end}`;
const toRange = (citation: Pick<Citation, 'documentId' | 'documentName' | 'start' | 'end'>): CitedRange => ({
  documentId: citation.documentId,
  documentName: citation.documentName,
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
    private readonly queries: QueryBus,
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

  private async replayTurn(recorded: Recorded, options: ReplayOptions): Promise<ReplayedTurn> {
    const { conversationId, messageId, replyTo, provenance, citations, usage } = recorded.data;
    const events = (await this.eventStore.readStream(
      conversationStreamId(conversationId),
    )) as unknown as EventEnvelope<ConversationEvent['type'], ConversationEvent['data']>[];
    const started = events.find((event) => event.type === 'ConversationStarted')?.data as
      Envelope<'ConversationStarted'>['data'] | undefined;
    const agentId = started?.agentId ?? '';
    const oldModel = this.gateway.registry.get(provenance.model);
    const old: ReplayedAnswer = {
      model: provenance.model,
      content: await this.cipher.open(recorded.data.content),
      citations: citations.map(toRange),
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      costUsd: oldModel?.pricing ? callCost(oldModel.pricing, usage) : null,
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
      contextItemsNotReplayed: (provenance.contextItems ?? []).map(
        (item) => `${item.kind}:${item.id}@${item.version}`,
      ),
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
    });
    if (!question) return failed('the question of this answer is not in its conversation');
    const questionText = await this.cipher.open(question.data.content);
    if (questionText === null) return failed('the question was erased (its key destroyed)');
    const askedAt = new Date(question.metadata.occurredAt);
    const agent = await agentAsOf(this.eventStore, agentId, askedAt);
    if (!agent)
      return failed(`Agent '${agentId}' did not exist at ${question.metadata.occurredAt}`, questionText);

    let sources: PassageSource[];
    let passagesMissing = 0;
    if (options.reRetrieve) {
      try {
        sources = await this.search(agentId, questionText, options.reRetrieve);
      } catch (error) {
        return failed(`searching the Knowledge again failed: ${(error as Error).message}`, questionText);
      }
    } else {
      sources = [];
      for (const source of provenance.sources) {
        const text = await recordedPassageText(this.eventStore, this.blobs, source);
        if (text === null) passagesMissing += 1;
        sources.push({
          index: source.index,
          documentName: source.documentName,
          sectionPath: source.sectionPath,
          documentId: source.documentId,
          start: source.start,
          end: source.end,
          text: text ?? '(the passage is no longer stored: its document was deleted)',
        });
      }
    }
    const messages = await recordedPrompt(
      this.cipher,

      events,
      question,
      agent.systemPrompt,
      provenance.checkpointId,
      sources,
      questionText,
    );
    const chatModel = this.gateway.resolve(options.model, 'chat');
    const scope: CallScope = {
      apiKey: REPLAY_KEY,
      userId: 'system',
      agentId,
      surface: 'core',
      correlationId: `replay-${newId('rpl')}`,
    };
    let result;
    try {
      result = await this.gateway.chat(
        scope,
        chatModel,
        {
          messages,
          ...(provenance.sampling.temperature !== null
            ? { temperature: provenance.sampling.temperature }
            : {}),
          ...(provenance.sampling.topP !== null ? { top_p: provenance.sampling.topP } : {}),
          ...(provenance.sampling.topK !== null ? { top_k: provenance.sampling.topK } : {}),
        },
        options.signal ?? AbortSignal.timeout(chatModel.timeoutMs),
        'replay',
      );
    } catch (error) {
      return failed(`the model call failed: ${(error as Error).message}`, questionText);
    }
    const content = typeof result.message.content === 'string' ? result.message.content : '';
    const byIndex = new Map(sources.map((source) => [source.index, source]));
    const newCitations = citationMarkers(content).flatMap((index) => {
      const source = byIndex.get(index);
      return source ? [toRange(source)] : [];
    });
    const fresh: ReplayedAnswer = {
      model: chatModel.key,
      content,
      citations: newCitations,
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
      costUsd: chatModel.pricing ? callCost(chatModel.pricing, result.usage) : null,
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
    };
  }

  /** Passages searched again for the question, as the platform (an admin of no person). */
  private async search(
    agentId: string,
    query: string,
    retrieval: NonNullable<ReplayOptions['reRetrieve']>,
  ): Promise<PassageSource[]> {
    const caller: Caller = {
      apiKey: REPLAY_KEY,
      actor: { kind: 'system', id: 'replay' },
      userId: 'system',
      isAdmin: true,
      correlationId: `replay-${newId('rpl')}`,
    };
    const answer = await this.queries.execute(
      new SearchKnowledge(agentId, { query: query.slice(0, 2000), ...retrieval }, caller),
    );
    return answer.hits.map((hit, i) => ({
      index: i + 1,
      documentName: hit.documentName,
      sectionPath: hit.sectionPath,
      documentId: hit.documentId,
      start: hit.start,
      end: hit.end,
      text: hit.text,
    }));
  }
}

const round = (usd: number): number => Math.round(usd * 1e9) / 1e9;
