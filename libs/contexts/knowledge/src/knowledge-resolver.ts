// What the policy reads about an Agent's Knowledge, loaded for the gate (#access enforcement): the Agent (the
// principal must use it: `agent.use`), the document a write changes (`knowledge.write` by its scope: Agent-level
// documents whoever uses the Agent, Space-level ones its managers, since every user of it reads them, Global ones
// admins only), its tag set (`knowledge.tag`: its managers). A command or query declares them with
// `@Requires(KnowledgeResolver, …)`; its handler then reads with KnowledgeReads, asking nothing.
import { Inject, Injectable } from '@nestjs/common';
import { agentToUse, manageDenied, type AgentView } from '#agents';
import { ask, asPrincipal, forbidden, type Ask, type PrincipalOrCaller } from '#access';
import type { SpaceView } from '#spaces';
import { ValidationError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import type { DocumentScope } from './document.events.js';
import { reachedDocument } from './knowledge-reads.js';

/**
 * The Agent a write goes through; null for the platform (a process manager cascading a deletion), which acts through
 * no Agent and on the log, where the read models may no longer hold the Agent (a replay).
 */
export const actingAgentId = (agentId: string | null, who: PrincipalOrCaller): string | null =>
  agentId !== null && asPrincipal(who).kind !== 'platform' ? agentId : null;

/** `knowledge.write` on a document of this scope through the Agent (one the principal uses: asked before). */
const writeAsk = (
  agent: AgentView,
  space: SpaceView | null,
  scope: DocumentScope,
  globalMessage: string,
): Ask =>
  ask('knowledge.write', { agent, space, scope }, () =>
    // Global documents are refused for not being an admin; the others with the manager's 403, worded as for every
    // manage action.
    scope === 'global' ? forbidden('admin_required', globalMessage) : manageDenied(agent),
  );

@Injectable()
export class KnowledgeResolver {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  /** `agent.use` on the Agent whose Knowledge a message reads or writes: 404, 403 `agent_access_denied`. */
  async use(agentId: string): Promise<readonly Ask[]> {
    return (await agentToUse(this.readStore, agentId)).asks;
  }

  /** Changing the Agent's tag set: using it, then `knowledge.tag` (403 `space_change_denied`). */
  async tag(agentId: string): Promise<readonly Ask[]> {
    const { agent, space, asks } = await agentToUse(this.readStore, agentId);
    return [...asks, ask('knowledge.tag', { agent, space }, () => manageDenied(agent))];
  }

  /** Adding a document of `scope` through the Agent; a Space-level one of an Agent in no Space is 400. */
  async add(agentId: string, scope: DocumentScope): Promise<readonly Ask[]> {
    const { agent, space, asks } = await agentToUse(this.readStore, agentId);
    if (scope === 'space' && !agent.spaceId)
      throw new ValidationError('agent_has_no_space', `Agent '${agent.id}' is not in a Space`, 'scope');
    return [...asks, writeAsk(agent, space, scope, 'only admins add Global documents')];
  }

  /**
   * Changing a document through the Agent. A document the Agent does not reach asks nothing beyond using the Agent:
   * the handler answers its 404 (after a principal out of the Agent's reach got its 403).
   */
  async change(agentId: string, documentId: string): Promise<readonly Ask[]> {
    const { agent, space, asks } = await agentToUse(this.readStore, agentId);
    const document = await reachedDocument(this.readStore, agent, documentId);
    return document
      ? [...asks, writeAsk(agent, space, document.scope, 'only admins change Global documents')]
      : asks;
  }

  /**
   * A write through the Agent (`through`), or, through none (see actingAgentId), the policy's strictest case:
   * `knowledge.write` on a Global document; the decider says whether there is anything to do.
   */
  async acting(
    agentId: string | null,
    who: PrincipalOrCaller,
    through: (agentId: string) => Promise<readonly Ask[]>,
  ): Promise<readonly Ask[]> {
    const acting = actingAgentId(agentId, who);
    if (acting !== null) return through(acting);
    const unscoped = { id: agentId ?? '', isPersonal: false, ownerUserId: null, spaceId: null };
    return [
      ask(
        'knowledge.write',
        { agent: unscoped, space: null, scope: 'global' },
        'only the platform changes Knowledge through no Agent',
      ),
    ];
  }
}
