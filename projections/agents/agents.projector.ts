// Read model of Agents for GET /agents and every agent-scoped access check: one document per live Agent.
import type { EventEnvelope } from '../../libs/kernel/src/index.js';
import type { Projector } from '../../libs/eventsourcing/src/projector.js';
import type { WriteOp } from '../../libs/read-store/src/read-store.port.js';
import {
  AGENT_EVENT_TYPES,
  agentChanges,
  type AgentEvent,
  type AgentRecord,
} from '../../libs/agents/src/agent.events.js';

export interface AgentView extends Omit<AgentRecord, 'agentId'> {
  readonly id: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const AGENTS = 'agents';

export const agentsProjector: Projector = {
  name: 'agents',
  version: 1,
  collections: [
    {
      name: AGENTS,
      indexes: [
        { fields: ['createdAt'] },
        { fields: ['spaceId'] },
        { fields: ['ownerUserId'] },
        { fields: ['name'] },
      ],
    },
  ],
  eventTypes: AGENT_EVENT_TYPES,
  project(envelope: EventEnvelope): WriteOp[] {
    const event = envelope as unknown as AgentEvent;
    const at = envelope.metadata.occurredAt;
    const id = event.data.agentId;
    switch (event.type) {
      case 'AgentCreated':
        return [
          {
            kind: 'upsert',
            collection: AGENTS,
            doc: { id, ...agentChanges(event), createdAt: at, updatedAt: at },
          },
        ];
      case 'AgentDeleted':
        return [{ kind: 'delete', collection: AGENTS, id }];
      default:
        return [{ kind: 'patch', collection: AGENTS, id, set: { ...agentChanges(event), updatedAt: at } }];
    }
  },
};
