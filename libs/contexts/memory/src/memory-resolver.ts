// Who may touch which memory, loaded for the gate (#access enforcement): a user reaches their own personal memories
// of an Agent they may use (`memory.read`, `memory.personal.write`), and reads the Agent's shared ones; changing
// shared memories (add, edit, roll back, delete, clear) needs the Agent's manager (`memory.shared.write`: a key that
// may change its Space, an admin, a personal Agent's own user); erasing all of one's memories across Agents is
// `memory.own.erase`. Memories are a user's own: a principal that is no user (an App, an embed visitor, the platform)
// has none. A memory or proposal of another user (`user.own`), another Agent, or one gone is the same 404. A command
// or query declares its asks with `@Requires(MemoryResolver, …)`; its handler then reads with the loaders below.
import { Inject, Injectable } from '@nestjs/common';
import { agentById, spaceOf, type AgentView } from '#agents';
import { ask, permits, userActingAs, type Ask, type Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import type { SpaceView } from '#spaces';
import { MemoryNotFoundError } from './memory.decider.js';
import { SHARED_OWNER } from './memory.events.js';
import { ProposalNotFoundError } from './memory-proposal.decider.js';
import { MEMORIES, MEMORY_PROPOSALS, type MemoryProposalView, type MemoryView } from './memory.read-model.js';
import { keepsNewMemories, sharedMemoryApplies } from './memory-rules.js';

const SHARED_DENIED =
  "only the Agent's manager (a key that may change its Space) or an admin may change its shared memories";

/** The memory of the Agent; null when there is none (or gone, or another Agent's). */
async function agentMemory(
  readStore: ReadStore,
  agentId: string,
  memoryId: string,
): Promise<MemoryView | null> {
  const view = await readStore.reader<MemoryView>(MEMORIES).get(memoryId);
  return view && view.agentId === agentId ? view : null;
}

/** The proposal to the Agent's users; null when there is none (or another Agent's). */
async function agentProposal(
  readStore: ReadStore,
  agentId: string,
  proposalId: string,
): Promise<MemoryProposalView | null> {
  const view = await readStore.reader<MemoryProposalView>(MEMORY_PROPOSALS).get(proposalId);
  return view && view.agentId === agentId ? view : null;
}

@Injectable()
export class MemoryResolver {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  /** Reading or changing one's own memories of the Agent: 404 when there is none, 403 `agent_access_denied`. */
  async agent(
    agentId: string,
    action: 'memory.read' | 'memory.personal.write' = 'memory.read',
  ): Promise<{ agent: AgentView; space: SpaceView | null; asks: readonly Ask[] }> {
    const agent = await agentById(this.readStore, agentId);
    const space = await spaceOf(this.readStore, agent);
    const denied = `this API key is not granted access to Agent '${agent.id}'`;
    return { agent, space, asks: [ask(action, { ...agent, space }, denied)] };
  }

  /**
   * Adding a memory to a bucket: one's own, or the shared one (its manager). The shared bucket is asked about only
   * where the handler would go on to add to it (memory kept, shared memory on): its 400s come first, as they did.
   */
  async add(agentId: string, bucket: 'personal' | 'shared'): Promise<readonly Ask[]> {
    const { agent, space, asks } = await this.agent(agentId, 'memory.personal.write');
    return bucket === 'shared' && keepsNewMemories(agent) && sharedMemoryApplies(agent)
      ? [...asks, sharedAsk(agent, space)]
      : asks;
  }

  /** Clearing a bucket of the Agent, or (no Agent) every personal bucket of one's own. */
  async clear(agentId: string | null, bucket: 'personal' | 'shared'): Promise<readonly Ask[]> {
    if (agentId === null) return [ask('memory.own.erase', null, 'only a user erases their own memories')];
    const { agent, space, asks } = await this.agent(agentId, 'memory.personal.write');
    return bucket === 'shared' ? [...asks, sharedAsk(agent, space)] : asks;
  }

  /**
   * One memory of the Agent: one's own (`user.own`, else 404) or a shared one; changing a shared one needs its
   * manager. A memory the Agent does not have asks nothing more: the handler answers its 404.
   */
  async memory(
    agentId: string,
    memoryId: string,
    action: 'memory.read' | 'memory.personal.write',
  ): Promise<readonly Ask[]> {
    const { agent, space, asks } = await this.agent(agentId, action);
    const view = await agentMemory(this.readStore, agentId, memoryId);
    if (!view) return asks;
    if (view.owner !== SHARED_OWNER)
      return [...asks, ask('user.own', { ownerUserId: view.owner }, () => new MemoryNotFoundError(memoryId))];
    return action === 'memory.personal.write' ? [...asks, sharedAsk(agent, space)] : asks;
  }

  /** One proposal of one's own (`user.own`, else 404) to the Agent; one the Agent does not have is the handler's 404. */
  async proposal(
    agentId: string,
    proposalId: string,
    action: 'memory.read' | 'memory.personal.write',
  ): Promise<readonly Ask[]> {
    const { asks } = await this.agent(agentId, action);
    const view = await agentProposal(this.readStore, agentId, proposalId);
    return view
      ? [...asks, ask('user.own', { ownerUserId: view.userId }, () => new ProposalNotFoundError(proposalId))]
      : asks;
  }
}

/** `memory.shared.write` on the Agent's shared bucket (403 `shared_memory_change_denied`). */
const sharedAsk = (agent: AgentView, space: SpaceView | null): Ask =>
  ask('memory.shared.write', { agent, space }, SHARED_DENIED, { code: 'shared_memory_change_denied' });

/** What the memory handlers read once the gate has asked. */
@Injectable()
export class MemoryReads {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  /** The Agent, or 404. */
  agent(agentId: string): Promise<AgentView> {
    return agentById(this.readStore, agentId);
  }

  /** The user a principal acts for: memories are a user's own (the gate's asks admit no other principal). */
  user(principal: Principal): string {
    return userActingAs(principal, 'memories belong to users: this principal has none');
  }

  /** The memory of the Agent, or 404. */
  async memory(agent: AgentView, memoryId: string): Promise<MemoryView> {
    const view = await agentMemory(this.readStore, agent.id, memoryId);
    if (!view) throw new MemoryNotFoundError(memoryId);
    return view;
  }

  /** The proposal to the Agent's users, or 404. */
  async proposal(agent: AgentView, proposalId: string): Promise<MemoryProposalView> {
    const view = await agentProposal(this.readStore, agent.id, proposalId);
    if (!view) throw new ProposalNotFoundError(proposalId);
    return view;
  }

  /** Whether the principal manages the Agent's shared memory (its manager or an admin): sees contributors and reach. */
  async managesShared(agent: AgentView, principal: Principal): Promise<boolean> {
    return permits(principal, 'memory.shared.write', { agent, space: await spaceOf(this.readStore, agent) });
  }
}
