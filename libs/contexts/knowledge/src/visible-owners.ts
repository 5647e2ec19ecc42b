// Whose documents an Agent can search: its own, its Space's, and Global ones.
import type { AgentView } from '#agents';

export const GLOBAL_OWNER = 'global';

export const visibleOwners = (agent: Pick<AgentView, 'id' | 'spaceId'>): string[] => [
  agent.id,
  ...(agent.spaceId ? [agent.spaceId] : []),
  GLOBAL_OWNER,
];
