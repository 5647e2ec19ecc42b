// The Agents read model (GET /agents and every agent-scoped access check): one document per live Agent. Built by
// projections/agents; its contract is the agents context's.
import { defineReadModel } from '#eventsourcing';
import type { AgentRecord } from './agent.events.js';

export interface AgentView extends Omit<AgentRecord, 'agentId'> {
  readonly id: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const AGENTS = 'agents';

export const AGENTS_READ_MODEL = defineReadModel<AgentView>({
  name: AGENTS,
  projection: 'agents',
  indexes: [
    { fields: ['createdAt'] },
    { fields: ['spaceId'] },
    { fields: ['ownerUserId'] },
    { fields: ['name'] },
  ],
});
