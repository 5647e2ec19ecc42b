// Agent commands and the pure decision over them: defaults, the rules between settings, one event per changed fact.
// Over 300 lines on purpose: every rule of an Agent's settings is decided against the others in one aggregate, one
// small function per command.
import { ConflictError, NotFoundError, ValidationError } from '#kernel';
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveAgent,
  initialAgentState,
  INSTANCE_EMBED_LIMITS,
  type AgentEvent,
  type AgentRecord,
  type AgentSettings,
  type AgentState,
  type Sampling,
} from './agent.events.js';

export const AGENT_DEFAULTS: Omit<AgentSettings, 'name' | 'model'> = {
  systemPrompt: '',
  memoryEnabled: true,
  sharedMemoryEnabled: false,
  isPublic: false,
  allowedUrls: [],
  embedSessionMinutes: 0,
  embedWindowTitle: '',
  temperature: null,
  topP: null,
  topK: null,
  knowledgeEnabled: true,
  includeAiSummary: false,
  conversationTokenBudget: null,
  codeExecutionEnabled: false,
  embedLimits: INSTANCE_EMBED_LIMITS,
};

export type AgentCommand =
  | {
      readonly type: 'CreateAgent';
      readonly agentId: string;
      readonly spaceId: string | null;
      readonly isPersonal: boolean;
      readonly ownerUserId: string | null;
      readonly settings: Partial<AgentSettings> & Pick<AgentSettings, 'name' | 'model'>;
    }
  | {
      readonly type: 'ChangeAgent';
      readonly agentId: string;
      readonly spaceId?: string;
      readonly settings: Partial<AgentSettings>;
    }
  | {
      /** A user's personal Agent (no Space), made by the platform: nothing when the Agent exists already. */
      readonly type: 'CreatePersonalAgent';
      readonly agentId: string;
      readonly ownerUserId: string;
      /** The user's private personal Space (null: a log from before personal Spaces). */
      readonly spaceId: string | null;
      readonly settings: Pick<AgentSettings, 'name' | 'model'>;
    }
  | { readonly type: 'ChangeAgentSystemPrompt'; readonly agentId: string; readonly systemPrompt: string }
  | {
      /** Puts a personal Agent created before personal Spaces into its user's (the platform; once). */
      readonly type: 'PlacePersonalAgent';
      readonly agentId: string;
      readonly spaceId: string;
    }
  | {
      readonly type: 'DeleteAgent';
      readonly agentId: string;
      readonly reason: 'requested' | 'space_deleted';
    };

const MEMORY_ON_PUBLIC = () =>
  new ValidationError(
    'memory_unavailable_for_public_agent',
    'memory cannot be enabled on a public Agent',
    'memoryEnabled',
  );

// A personal Agent is its user's alone: publishing it would let anyone who is sent its link talk to it.
const PERSONAL_PUBLIC = () =>
  new ValidationError(
    'personal_agent_cannot_be_public',
    "a personal Agent is its user's alone and cannot be made public",
    'isPublic',
  );

function checkSettings(settings: Partial<AgentSettings>): void {
  if (settings.name !== undefined && settings.name.trim().length === 0)
    throw new ValidationError('invalid_name', 'name must not be empty', 'name');
  if (settings.model !== undefined && settings.model.trim().length === 0)
    throw new ValidationError('invalid_model', 'model must not be empty', 'model');
}

function sameUrls(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((url, i) => url === b[i]);
}

type AgentOf<Type extends AgentCommand['type']> = Extract<AgentCommand, { readonly type: Type }>;
type ChangeAgent = AgentOf<'ChangeAgent'>;

function active(state: AgentState, agentId: string): AgentRecord {
  if (state.status !== 'active') throw new NotFoundError('Agent', agentId);
  return state;
}

function createAgent(command: AgentOf<'CreateAgent'>, state: AgentState): AgentEvent[] {
  const { agentId } = command;
  if (state.status !== 'absent') throw new ConflictError('agent_exists', `Agent '${agentId}' already exists`);
  checkSettings(command.settings);
  const isPublic = command.settings.isPublic ?? false;
  if (isPublic && command.isPersonal) throw PERSONAL_PUBLIC();
  if (isPublic && command.settings.memoryEnabled === true) throw MEMORY_ON_PUBLIC();
  const settings: AgentSettings = {
    ...AGENT_DEFAULTS,
    ...command.settings,
    name: command.settings.name.trim(),
    memoryEnabled: isPublic ? false : (command.settings.memoryEnabled ?? true),
  };
  return [
    {
      type: 'AgentCreated',
      data: {
        agentId,
        spaceId: command.spaceId,
        isPersonal: command.isPersonal,
        ownerUserId: command.ownerUserId,
        ...settings,
      },
    },
  ];
}

function createPersonalAgent(command: AgentOf<'CreatePersonalAgent'>, state: AgentState): AgentEvent[] {
  if (state.status !== 'absent') return [];
  const { agentId, ownerUserId, settings, spaceId } = command;
  return createAgent(
    { type: 'CreateAgent', agentId, spaceId, isPersonal: true, ownerUserId, settings },
    state,
  );
}

function changeAgent(command: ChangeAgent, current: AgentState): AgentEvent[] {
  const state = active(current, command.agentId);
  const { settings } = command;
  checkSettings(settings);
  if (state.isPersonal && settings.isPublic === true) throw PERSONAL_PUBLIC();
  const willBePublic = settings.isPublic ?? state.isPublic;
  if (willBePublic && settings.memoryEnabled === true) throw MEMORY_ON_PUBLIC();
  return [
    ...identityChanges(command, state),
    ...reachChanges(command, state, willBePublic),
    ...answerChanges(command, state),
  ];
}

/** An event when a setting is turned on or off. */
function toggled(
  agentId: string,
  wanted: boolean | undefined,
  current: boolean,
  on: AgentEvent['type'],
  off: AgentEvent['type'],
): AgentEvent[] {
  return wanted !== undefined && wanted !== current
    ? [{ type: wanted ? on : off, data: { agentId } } as AgentEvent]
    : [];
}

/** What the Agent is: its name, Space, model and prompt. */
function identityChanges({ agentId, settings, spaceId }: ChangeAgent, state: AgentRecord): AgentEvent[] {
  const events: AgentEvent[] = [];
  const name = settings.name?.trim();
  if (name !== undefined && name !== state.name)
    events.push({ type: 'AgentRenamed', data: { agentId, name } });
  if (spaceId !== undefined && spaceId !== state.spaceId) {
    if (state.isPersonal)
      throw new ValidationError(
        'personal_agent_has_no_space',
        "a personal Agent stays in its user's private personal Space",
        'spaceId',
      );
    events.push({ type: 'AgentMovedToSpace', data: { agentId, spaceId } });
  }
  if (settings.model !== undefined && settings.model !== state.model)
    events.push({ type: 'AgentModelChanged', data: { agentId, model: settings.model } });
  if (settings.systemPrompt !== undefined && settings.systemPrompt !== state.systemPrompt)
    events.push({ type: 'AgentSystemPromptChanged', data: { agentId, systemPrompt: settings.systemPrompt } });
  return events;
}

/** Who reaches the Agent and what it remembers: memory, publicity, the embed. */
function reachChanges(
  { agentId, settings }: ChangeAgent,
  state: AgentRecord,
  willBePublic: boolean,
): AgentEvent[] {
  const events: AgentEvent[] = [
    // Making an Agent public turns its memory off: memory is unavailable to public Agents.
    ...toggled(
      agentId,
      willBePublic ? false : settings.memoryEnabled,
      state.memoryEnabled,
      'AgentMemoryEnabled',
      'AgentMemoryDisabled',
    ),
    ...toggled(
      agentId,
      settings.sharedMemoryEnabled,
      state.sharedMemoryEnabled,
      'AgentSharedMemoryEnabled',
      'AgentSharedMemoryDisabled',
    ),
    ...toggled(agentId, settings.isPublic, state.isPublic, 'AgentMadePublic', 'AgentMadePrivate'),
  ];
  if (settings.allowedUrls !== undefined && !sameUrls(settings.allowedUrls, state.allowedUrls))
    events.push({ type: 'AgentAllowedUrlsChanged', data: { agentId, allowedUrls: settings.allowedUrls } });
  if (
    settings.embedSessionMinutes !== undefined &&
    settings.embedSessionMinutes !== state.embedSessionMinutes
  )
    events.push({
      type: 'AgentEmbedSessionMinutesChanged',
      data: { agentId, embedSessionMinutes: settings.embedSessionMinutes },
    });
  if (settings.embedWindowTitle !== undefined && settings.embedWindowTitle !== state.embedWindowTitle)
    events.push({
      type: 'AgentEmbedWindowTitleChanged',
      data: { agentId, embedWindowTitle: settings.embedWindowTitle },
    });
  return events;
}

/** How the Agent answers: sampling, knowledge, summaries, the budget, limits, code execution. */
function answerChanges({ agentId, settings }: ChangeAgent, state: AgentRecord): AgentEvent[] {
  const events: AgentEvent[] = [];
  const sampling: Sampling = {
    temperature: settings.temperature !== undefined ? settings.temperature : state.temperature,
    topP: settings.topP !== undefined ? settings.topP : state.topP,
    topK: settings.topK !== undefined ? settings.topK : state.topK,
  };
  if (
    sampling.temperature !== state.temperature ||
    sampling.topP !== state.topP ||
    sampling.topK !== state.topK
  )
    events.push({ type: 'AgentSamplingChanged', data: { agentId, ...sampling } });
  events.push(
    ...toggled(
      agentId,
      settings.knowledgeEnabled,
      state.knowledgeEnabled,
      'AgentKnowledgeEnabled',
      'AgentKnowledgeDisabled',
    ),
    ...toggled(
      agentId,
      settings.includeAiSummary,
      state.includeAiSummary,
      'AgentAiSummaryIncluded',
      'AgentAiSummaryExcluded',
    ),
  );
  if (
    settings.conversationTokenBudget !== undefined &&
    settings.conversationTokenBudget !== state.conversationTokenBudget
  )
    events.push({
      type: 'AgentConversationBudgetChanged',
      data: { agentId, conversationTokenBudget: settings.conversationTokenBudget },
    });
  if (settings.embedLimits !== undefined) {
    const limits = settings.embedLimits;
    const current = state.embedLimits ?? INSTANCE_EMBED_LIMITS;
    if (
      limits.visitorMessagesPerMinute !== current.visitorMessagesPerMinute ||
      limits.agentMessagesPerMinute !== current.agentMessagesPerMinute ||
      limits.dailyCostUsd !== current.dailyCostUsd
    )
      events.push({ type: 'AgentEmbedLimitsChanged', data: { agentId, embedLimits: limits } });
  }
  events.push(
    ...toggled(
      agentId,
      settings.codeExecutionEnabled,
      state.codeExecutionEnabled,
      'AgentCodeExecutionEnabled',
      'AgentCodeExecutionDisabled',
    ),
  );
  return events;
}

function changeAgentSystemPrompt(
  { agentId, systemPrompt }: AgentOf<'ChangeAgentSystemPrompt'>,
  state: AgentState,
): AgentEvent[] {
  return active(state, agentId).systemPrompt === systemPrompt
    ? []
    : [{ type: 'AgentSystemPromptChanged', data: { agentId, systemPrompt } }];
}

const placePersonalAgent = (
  { agentId, spaceId }: AgentOf<'PlacePersonalAgent'>,
  state: AgentState,
): AgentEvent[] =>
  state.status === 'active' && state.isPersonal && state.spaceId === null
    ? [{ type: 'AgentMovedToSpace', data: { agentId, spaceId } }]
    : [];

function deleteAgent({ agentId, reason }: AgentOf<'DeleteAgent'>, state: AgentState): AgentEvent[] {
  if (state.status === 'absent') throw new NotFoundError('Agent', agentId);
  // Every user has a personal Agent for as long as the user exists (nothing would create another).
  if (state.status === 'active' && state.isPersonal)
    throw new ConflictError(
      'personal_agent_undeletable',
      "a user's personal Agent cannot be deleted while the user exists",
    );
  return state.status === 'deleted' ? [] : [{ type: 'AgentDeleted', data: { agentId, reason } }];
}

export const decideAgent = decideByType<AgentState, AgentCommand, AgentEvent>({
  CreateAgent: createAgent,
  CreatePersonalAgent: createPersonalAgent,
  ChangeAgent: changeAgent,
  ChangeAgentSystemPrompt: changeAgentSystemPrompt,
  PlacePersonalAgent: placePersonalAgent,
  DeleteAgent: deleteAgent,
});

export const agentDecider: Decider<AgentState, AgentCommand, AgentEvent> = {
  initialState: initialAgentState,
  evolve: evolveAgent,
  decide: decideAgent,
};
