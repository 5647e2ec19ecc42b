// Who may touch which memory: a user reaches their own personal memories of an Agent they may use, and reads the
// Agent's shared ones; changing shared memories (add, edit, roll back, delete, clear) needs the Agent's manager (the
// policy's `memory.shared.write`: a key that may change its Space, an admin, a personal Agent's own user). A memory of another user, another Agent, or one gone is the same 404.
import { Inject, Injectable } from '@nestjs/common';
import { accessibleAgent, type AgentView } from '#agents';
import { authorize, type Caller } from '#identity';
import { ForbiddenError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { SPACES, type SpaceView } from '#spaces';
import { MemoryNotFoundError } from './memory.decider.js';
import { SHARED_OWNER } from './memory.events.js';
import { MEMORIES, type MemoryView } from './memory.read-model.js';

@Injectable()
export class MemoryAccess {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  agent(agentId: string, caller: Caller): Promise<AgentView> {
    return accessibleAgent(this.readStore, agentId, caller);
  }

  /** The memory, if the caller sees it (its own personal one, or the Agent's shared one). */
  async memory(agent: AgentView, memoryId: string, caller: Caller): Promise<MemoryView> {
    const view = await this.readStore.reader<MemoryView>(MEMORIES).get(memoryId);
    if (!view || view.agentId !== agent.id || (view.owner !== caller.userId && view.owner !== SHARED_OWNER))
      throw new MemoryNotFoundError(memoryId);
    return view;
  }

  /** Whether the caller manages the Agent's shared memory (its manager or an admin): sees contributors and reach. */
  async managesShared(agent: AgentView, caller: Caller): Promise<boolean> {
    try {
      await this.requireWritable(agent, SHARED_OWNER, caller);
      return true;
    } catch (error) {
      if (error instanceof ForbiddenError) return false;
      throw error;
    }
  }

  /** The bucket the caller may change: its own, or the shared one when it manages the Agent. */
  async requireWritable(agent: AgentView, owner: string, caller: Caller): Promise<void> {
    if (owner !== SHARED_OWNER) return;
    const space = agent.spaceId ? await this.readStore.reader<SpaceView>(SPACES).get(agent.spaceId) : null;
    if (!authorize(caller, 'memory.shared.write', { agent, space: space ?? null }).allow)
      throw new ForbiddenError(
        'shared_memory_change_denied',
        "only the Agent's manager (a key that may change its Space) or an admin may change its shared memories",
      );
  }
}
