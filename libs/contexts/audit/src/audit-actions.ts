// The action of each event type in words, one table per context. A type missing from the tables (a context added
// later) is still listed: its name split into words ("SkillVersionPublished" → "skill version published").

const SPACES: Record<string, string> = {
  SpaceCreated: 'created the Space',
  SpaceRenamed: 'renamed the Space',
  SpaceSlugChanged: "changed the Space's slug",
  SpaceDescriptionChanged: "changed the Space's description",
  SpaceColorChanged: "changed the Space's colour",
  SpaceDeleted: 'deleted the Space',
};

const AGENTS: Record<string, string> = {
  AgentCreated: 'created the Agent',
  AgentRenamed: 'renamed the Agent',
  AgentMovedToSpace: 'moved the Agent to another Space',
  AgentModelChanged: "changed the Agent's model",
  AgentSystemPromptChanged: "changed the Agent's prompt",
  AgentSamplingChanged: "changed the Agent's sampling",
  AgentMemoryEnabled: "turned the Agent's memory on",
  AgentMemoryDisabled: "turned the Agent's memory off",
  AgentSharedMemoryEnabled: "turned the Agent's shared memory on",
  AgentSharedMemoryDisabled: "turned the Agent's shared memory off",
  AgentMadePublic: 'made the Agent public',
  AgentMadePrivate: 'made the Agent private',
  AgentKnowledgeEnabled: "turned the Agent's Knowledge on",
  AgentKnowledgeDisabled: "turned the Agent's Knowledge off",
  AgentCodeExecutionEnabled: 'allowed the Agent to run code',
  AgentCodeExecutionDisabled: 'stopped the Agent running code',
  AgentDeleted: 'deleted the Agent',
};

const IDENTITY: Record<string, string> = {
  ApiKeyIssued: 'issued an API key',
  ApiKeyRenamed: 'renamed an API key',
  ApiKeyAgentAccessChanged: "changed an API key's Agent grants",
  ApiKeyUsageLimitChanged: "changed an API key's usage limit",
  ApiKeyRevoked: 'revoked an API key',
  UserSpendLimitChanged: "changed a user's weekly spend limit",
};

const KNOWLEDGE: Record<string, string> = {
  DocumentAdded: 'added a document',
  DocumentRenamed: 'renamed a document',
  DocumentDeleted: 'deleted a document',
  DocumentContentPurged: "purged a document's content",
};

const OPERATIONS: Record<string, string> = {
  ProjectionRebuildRequested: 'requested a rebuild of a projection',
};

const ACTIONS: Readonly<Record<string, string>> = {
  ...SPACES,
  ...AGENTS,
  ...IDENTITY,
  ...KNOWLEDGE,
  ...OPERATIONS,
};

/** "SkillVersionPublished" → "skill version published". */
export const typeInWords = (type: string): string =>
  type
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase();

export const actionOf = (type: string): string => ACTIONS[type] ?? typeInWords(type);
