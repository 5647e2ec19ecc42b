// The Spaces context asks which Spaces a caller reaches through its Agents; this answers from the Agents read model.
import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '#identity';
import { findAll, READ_STORE, type ReadStore } from '#read-store';
import { SpaceGrants } from '#spaces';
import { AGENTS, type AgentView } from './agents.read-model.js';

@Injectable()
export class AgentSpaceGrants extends SpaceGrants {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {
    super();
  }

  async grantedSpaceIds(caller: Caller): Promise<string[]> {
    const access = caller.apiKey.agentAccess;
    // `all` (and a session) reaches the Agents of the Spaces its user has a role in: no Space beyond them.
    if (access.kind === 'all') return [];
    const granted = await findAll<AgentView>(this.readStore, AGENTS, { id: { $in: access.agentIds } });
    return granted.flatMap((agent) => (agent.spaceId ? [agent.spaceId] : []));
  }
}
