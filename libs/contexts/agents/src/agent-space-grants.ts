// The Spaces context asks which Spaces a principal reaches through its Agents; this answers from the Agents read model.
import { Inject, Injectable } from '@nestjs/common';
import { permits, type AgentAccess, type Principal } from '#access';
import { findAll, READ_STORE, type ReadStore } from '#read-store';
import { SpaceGrants } from '#spaces';
import { AGENTS, type AgentView } from './agents.read-model.js';
import { spaceOf } from './agent-resolver.js';

/** The Agents a principal is granted: a key's grants; a session (its user) and the platform every Agent. */
function grantsOf(principal: Principal): AgentAccess {
  switch (principal.kind) {
    case 'apiKey':
      return principal.grants;
    case 'session':
    case 'platform':
      return { kind: 'all' };
    case 'appToken':
      return {
        kind: 'agents',
        agentIds: principal.allowlist === 'standalone' ? [] : [...principal.allowlist],
      };
    case 'embedVisitor':
      return { kind: 'agents', agentIds: [principal.agentId] };
  }
}

@Injectable()
export class AgentSpaceGrants extends SpaceGrants {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {
    super();
  }

  async grantedSpaceIds(principal: Principal): Promise<string[]> {
    const access = grantsOf(principal);
    // `all` (a session, an 'all' key) reaches the Agents of the Spaces its user has a role in: no Space beyond them.
    if (access.kind === 'all') return [];
    const granted = await findAll<AgentView>(this.readStore, AGENTS, { id: { $in: access.agentIds } });
    // A listed Agent shows its Space only when the principal reaches it (a key's list narrows its user's rights).
    const reached: string[] = [];
    for (const agent of granted) {
      if (!agent.spaceId) continue;
      const space = await spaceOf(this.readStore, agent);
      if (permits(principal, 'agent.use', { ...agent, space })) reached.push(agent.spaceId);
    }
    return reached;
  }
}
