// The assembly of a turn's answer: citation markers checked against the sources this turn retrieved (unknown ones
// dropped), the answer as recorded with its provenance, and the answer as the client receives it.
import type { AgentView } from '#agents';
import { sha256 } from '#kernel';
import type { ModelConfig } from '#model-providers';
import type { Citation } from '../conversation.events.js';
import type { NewAnswer, Visibility } from '../conversation-records.js';
import type { LoopResult } from './answer-loop.js';
import type { ContextItem } from './context-providers.js';
import { citationMarkers, dropUnknownMarkers } from './grounding.js';
import type { SourceBook } from './source-book.js';

export type AnswerCitation = Citation;

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

export const NO_USAGE = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };

/** What the turn produced, as the answer is assembled from it. */
export interface TurnOutcome {
  readonly agent: AgentView;
  readonly model: ModelConfig;
  readonly messageId: string;
  readonly answerId: string;
  readonly result: LoopResult;
  /** False when the turn was interrupted (the answer is recorded incomplete). */
  readonly complete: boolean;
  readonly sources: SourceBook;
  readonly agentRevision: number | null;
  readonly checkpointId: string | null;
  readonly contributors: readonly string[];
  /** The providers' items and those the tools loaded during the turn. */
  readonly contextItems: readonly ContextItem[];
}

/** The answer as recorded: its text with only the citations of this turn's sources, and its provenance. */
export function recordedAnswer(outcome: TurnOutcome): NewAnswer {
  const { agent, model, result, sources } = outcome;
  const known = sources.indexes();
  const content = dropUnknownMarkers(result.content, known);
  const summary = agent.includeAiSummary ? sources.summary : null;
  const citations: AnswerCitation[] = citationMarkers(content)
    .filter((index) => known.has(index))
    .map((index) => {
      const citation = sources.get(index)!;
      return agent.includeAiSummary
        ? {
            ...citation,
            // Kept with the answer, so a reloaded conversation's citation still opens its summary.
            summary:
              summary && summary.documentIds.includes(citation.documentId)
                ? { nodeId: summary.nodeId, level: summary.level, text: summary.text }
                : null,
          }
        : citation;
    });
  return {
    messageId: outcome.answerId,
    replyTo: outcome.messageId,
    content,
    citations,
    status: outcome.complete ? 'complete' : 'incomplete',
    finishReason: result.finishReason,
    usage: result.usage,
    provenance: {
      model: model.key,
      provider: model.provider,
      sampling: { temperature: agent.temperature, topP: agent.topP, topK: agent.topK },
      agentRevision: outcome.agentRevision,
      systemPromptSha256: sha256(agent.systemPrompt),
      sources: sources.all(),
      toolCalls: result.toolCalls,
      steps: result.steps,
      checkpointId: outcome.checkpointId,
      contextProviders: [...outcome.contributors],
      ...(outcome.contextItems.length > 0 ? { contextItems: [...outcome.contextItems] } : {}),
    },
  };
}

/** The answer as the client receives it (with the section summary of a cited document when the Agent asks for it). */
export function turnAnswer(
  outcome: TurnOutcome,
  answer: NewAnswer,
  turn: {
    readonly conversationId: string;
    readonly created: boolean;
    readonly visibility: Visibility;
    readonly postedAt: Date;
    readonly answeredAt: Date;
  },
  notices: Record<string, unknown>,
): TurnAnswer {
  const { agent } = outcome;
  const summary = agent.includeAiSummary ? outcome.sources.summary : null;
  return {
    conversationId: turn.conversationId,
    created: turn.created,
    replayed: false,
    visibility: turn.visibility,
    userMessage: { id: outcome.messageId, createdAt: turn.postedAt.toISOString() },
    message: {
      id: outcome.answerId,
      role: 'assistant',
      content: answer.content,
      citations: answer.citations.map((citation) => ({
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
      model: outcome.model.key,
      finishReason: outcome.result.finishReason,
      status: answer.status,
      usage: outcome.result.usage,
      createdAt: turn.answeredAt.toISOString(),
      ...notices,
    },
  };
}

/** A turn's answer as the route sends it (the JSON answer, and the stream's `done`). */
export const turnResult = (answer: TurnAnswer) => ({
  conversationId: answer.conversationId,
  created: answer.created,
  userMessage: answer.userMessage,
  message: answer.message,
});
