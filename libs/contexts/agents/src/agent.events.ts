// The Agent aggregate: its events (business facts, one per setting a user changes), its state and evolve.
import type { DomainEvent } from '#kernel';

export interface Sampling {
  /** null means the control is disabled for this Agent and is not sent to the model. */
  readonly temperature: number | null;
  readonly topP: number | null;
  readonly topK: number | null;
}

/**
 * Abuse limits of a public Agent's embed; each null is the instance default (EMBED_VISITOR_MESSAGES_PER_MINUTE,
 * EMBED_AGENT_MESSAGES_PER_MINUTE, EMBED_DAILY_COST_USD).
 */
export interface EmbedLimits {
  readonly visitorMessagesPerMinute: number | null;
  readonly agentMessagesPerMinute: number | null;
  readonly dailyCostUsd: number | null;
}

export const INSTANCE_EMBED_LIMITS: EmbedLimits = {
  visitorMessagesPerMinute: null,
  agentMessagesPerMinute: null,
  dailyCostUsd: null,
};

export interface AgentSettings extends Sampling {
  readonly name: string;
  readonly model: string;
  readonly systemPrompt: string;
  readonly memoryEnabled: boolean;
  readonly sharedMemoryEnabled: boolean;
  readonly isPublic: boolean;
  readonly allowedUrls: readonly string[];
  readonly embedSessionMinutes: number;
  readonly embedWindowTitle: string;
  readonly knowledgeEnabled: boolean;
  readonly includeAiSummary: boolean;
  /** Tokens of prompt a conversation turn may send before its history is compacted; null: the instance default. */
  readonly conversationTokenBudget: number | null;
  /** The Agent's conversations may run code in a sandbox (the run_code tool); off by default. */
  readonly codeExecutionEnabled: boolean;
  /** Its embed's abuse limits (null each: the instance defaults). */
  readonly embedLimits: EmbedLimits;
}

type Id = { readonly agentId: string };

export type AgentEvent =
  | DomainEvent<
      'AgentCreated',
      Id &
        Omit<AgentSettings, 'conversationTokenBudget' | 'codeExecutionEnabled' | 'embedLimits'> & {
          /** Added later: Agents created before it have none (the instance defaults). */
          readonly embedLimits?: EmbedLimits;
          /** Added later: Agents created before it have none (the instance default). */
          readonly conversationTokenBudget?: number | null;
          /** Added later: Agents created before it have none (off). */
          readonly codeExecutionEnabled?: boolean;
          readonly spaceId: string | null;
          readonly isPersonal: boolean;
          readonly ownerUserId: string | null;
        }
    >
  | DomainEvent<'AgentRenamed', Id & { readonly name: string }>
  | DomainEvent<'AgentMovedToSpace', Id & { readonly spaceId: string }>
  | DomainEvent<'AgentModelChanged', Id & { readonly model: string }>
  | DomainEvent<'AgentSystemPromptChanged', Id & { readonly systemPrompt: string }>
  | DomainEvent<'AgentMemoryEnabled', Id>
  | DomainEvent<'AgentMemoryDisabled', Id>
  | DomainEvent<'AgentSharedMemoryEnabled', Id>
  | DomainEvent<'AgentSharedMemoryDisabled', Id>
  | DomainEvent<'AgentMadePublic', Id>
  | DomainEvent<'AgentMadePrivate', Id>
  | DomainEvent<'AgentAllowedUrlsChanged', Id & { readonly allowedUrls: readonly string[] }>
  | DomainEvent<'AgentEmbedSessionMinutesChanged', Id & { readonly embedSessionMinutes: number }>
  | DomainEvent<'AgentEmbedWindowTitleChanged', Id & { readonly embedWindowTitle: string }>
  | DomainEvent<'AgentSamplingChanged', Id & Sampling>
  | DomainEvent<'AgentKnowledgeEnabled', Id>
  | DomainEvent<'AgentKnowledgeDisabled', Id>
  | DomainEvent<'AgentAiSummaryIncluded', Id>
  | DomainEvent<'AgentAiSummaryExcluded', Id>
  | DomainEvent<'AgentConversationBudgetChanged', Id & { readonly conversationTokenBudget: number | null }>
  | DomainEvent<'AgentCodeExecutionEnabled', Id>
  | DomainEvent<'AgentCodeExecutionDisabled', Id>
  | DomainEvent<'AgentEmbedLimitsChanged', Id & { readonly embedLimits: EmbedLimits }>
  | DomainEvent<'AgentDeleted', Id & { readonly reason: 'requested' | 'space_deleted' }>;

export type AgentEventType = AgentEvent['type'];

export interface AgentRecord extends AgentSettings {
  readonly agentId: string;
  readonly spaceId: string | null;
  readonly isPersonal: boolean;
  readonly ownerUserId: string | null;
}

export type AgentState =
  { readonly status: 'absent' } | ({ readonly status: 'active' | 'deleted' } & AgentRecord);

export const agentStreamId = (agentId: string): string => `agent-${agentId}`;

export const initialAgentState = (): AgentState => ({ status: 'absent' });

/** The settings each event sets, as a partial record: shared by evolve and the agents projector. */
export function agentChanges(event: AgentEvent): Partial<AgentRecord> {
  switch (event.type) {
    case 'AgentCreated': {
      const { agentId: _agentId, ...fields } = event.data;
      return {
        conversationTokenBudget: null,
        codeExecutionEnabled: false,
        embedLimits: INSTANCE_EMBED_LIMITS,
        ...fields,
      };
    }
    case 'AgentRenamed':
      return { name: event.data.name };
    case 'AgentMovedToSpace':
      return { spaceId: event.data.spaceId };
    case 'AgentModelChanged':
      return { model: event.data.model };
    case 'AgentSystemPromptChanged':
      return { systemPrompt: event.data.systemPrompt };
    case 'AgentMemoryEnabled':
      return { memoryEnabled: true };
    case 'AgentMemoryDisabled':
      return { memoryEnabled: false };
    case 'AgentSharedMemoryEnabled':
      return { sharedMemoryEnabled: true };
    case 'AgentSharedMemoryDisabled':
      return { sharedMemoryEnabled: false };
    case 'AgentMadePublic':
      return { isPublic: true };
    case 'AgentMadePrivate':
      return { isPublic: false };
    case 'AgentAllowedUrlsChanged':
      return { allowedUrls: event.data.allowedUrls };
    case 'AgentEmbedSessionMinutesChanged':
      return { embedSessionMinutes: event.data.embedSessionMinutes };
    case 'AgentEmbedWindowTitleChanged':
      return { embedWindowTitle: event.data.embedWindowTitle };
    case 'AgentSamplingChanged':
      return { temperature: event.data.temperature, topP: event.data.topP, topK: event.data.topK };
    case 'AgentKnowledgeEnabled':
      return { knowledgeEnabled: true };
    case 'AgentKnowledgeDisabled':
      return { knowledgeEnabled: false };
    case 'AgentAiSummaryIncluded':
      return { includeAiSummary: true };
    case 'AgentAiSummaryExcluded':
      return { includeAiSummary: false };
    case 'AgentConversationBudgetChanged':
      return { conversationTokenBudget: event.data.conversationTokenBudget };
    case 'AgentCodeExecutionEnabled':
      return { codeExecutionEnabled: true };
    case 'AgentEmbedLimitsChanged':
      return { embedLimits: event.data.embedLimits };
    case 'AgentCodeExecutionDisabled':
      return { codeExecutionEnabled: false };
    case 'AgentDeleted':
      return {};
  }
}

export function evolveAgent(state: AgentState, event: AgentEvent): AgentState {
  if (event.type === 'AgentCreated')
    return { status: 'active', agentId: event.data.agentId, ...agentChanges(event) } as AgentState;
  if (state.status === 'absent') return state;
  if (event.type === 'AgentDeleted') return { ...state, status: 'deleted' };
  return { ...state, ...agentChanges(event) };
}
