// Who may touch which memory, asked of the one policy (#identity authorization/policy.ts): a user reaches their own
// personal memories of an Agent they may use (`memory.read`, `memory.personal.write`), and reads the Agent's shared
// ones; changing shared memories (add, edit, roll back, delete, clear) needs the Agent's manager
// (`memory.shared.write`: a key that may change its Space, an admin, a personal Agent's own user); erasing all of
// one's memories across Agents is `memory.own.erase`. Memories are a user's own: a principal that is no user (an App,
// an embed visitor, the platform) has none. A memory of another user, another Agent, or one gone is the same 404.
import { Inject, Injectable } from '@nestjs/common';
import { AGENTS, spaceOf, type AgentView } from '#agents';
import { demand, permits, userActingAs, type Principal } from '#access';
import { ForbiddenError, NotFoundError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { SPACES, type SpaceView } from '#spaces';
import { MemoryNotFoundError } from './memory.decider.js';
import { SHARED_OWNER } from './memory.events.js';
import { MEMORIES, type MemoryView } from './memory.read-model.js';

@Injectable()
export class MemoryAccess {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  /** The user a principal acts for: memories are a user's own (403 for any other principal). */
  user(principal: Principal): string {
    return userActingAs(principal, 'memories belong to users: this principal has none');
  }

  /** The Agent a route names, if the principal may read (`memory.read`) or change its own memories of it. */
  async agent(
    agentId: string,
    principal: Principal,
    action: 'memory.read' | 'memory.personal.write' = 'memory.read',
  ): Promise<AgentView> {
    const agent = await this.readStore.reader<AgentView>(AGENTS).get(agentId);
    if (!agent) throw new NotFoundError('Agent', agentId);
    demand(
      principal,
      action,
      { ...agent, space: await spaceOf(this.readStore, agent) },
      `this API key is not granted access to Agent '${agent.id}'`,
    );
    return agent;
  }

  /** The memory, if the principal sees it (its own personal one, or the Agent's shared one). */
  async memory(agent: AgentView, memoryId: string, principal: Principal): Promise<MemoryView> {
    const view = await this.readStore.reader<MemoryView>(MEMORIES).get(memoryId);
    if (
      !view ||
      view.agentId !== agent.id ||
      (view.owner !== SHARED_OWNER && !permits(principal, 'user.own', { ownerUserId: view.owner }))
    )
      throw new MemoryNotFoundError(memoryId);
    return view;
  }

  /** Whether the principal manages the Agent's shared memory (its manager or an admin): sees contributors and reach. */
  async managesShared(agent: AgentView, principal: Principal): Promise<boolean> {
    try {
      await this.requireWritable(agent, SHARED_OWNER, principal);
      return true;
    } catch (error) {
      if (error instanceof ForbiddenError) return false;
      throw error;
    }
  }

  /** The bucket the principal may change: its own, or the shared one when it manages the Agent. */
  async requireWritable(agent: AgentView, owner: string, principal: Principal): Promise<void> {
    if (owner !== SHARED_OWNER) return;
    const space = agent.spaceId ? await this.readStore.reader<SpaceView>(SPACES).get(agent.spaceId) : null;
    demand(
      principal,
      'memory.shared.write',
      { agent, space: space ?? null },
      "only the Agent's manager (a key that may change its Space) or an admin may change its shared memories",
      'shared_memory_change_denied',
    );
  }

  /** Erasing every memory of one's own, across Agents (`memory.own.erase`): the user it acts for. */
  requireOwnErase(principal: Principal): string {
    demand(principal, 'memory.own.erase', null, 'only a user erases their own memories');
    return this.user(principal);
  }
}
