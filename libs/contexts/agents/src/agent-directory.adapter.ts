// Identity's AgentDirectory port, answered from the agents read model.
import { Inject, Injectable } from '@nestjs/common';
import { AgentDirectory, type AgentOwnership } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { AGENTS, type AgentView } from './agents.read-model.js';
import { spaceOf } from './agent-resolver.js';

@Injectable()
export class ReadModelAgentDirectory extends AgentDirectory {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {
    super();
  }

  async ownership(agentIds: readonly string[]): Promise<ReadonlyMap<string, AgentOwnership>> {
    const reader = this.readStore.reader<AgentView>(AGENTS);
    const found = new Map<string, AgentOwnership>();
    for (const id of new Set(agentIds)) {
      const agent = await reader.get(id);
      if (agent)
        found.set(id, {
          id: agent.id,
          isPersonal: agent.isPersonal,
          ownerUserId: agent.ownerUserId,
          // With its Space's members: a self-made key grants only Agents its user may use by their roles.
          space: await spaceOf(this.readStore, agent),
        });
    }
    return found;
  }
}
