// Who may read and change what in an Agent's Knowledge (the rules are the policy's `knowledge.write` and
// `knowledge.tag`; this loads what they need): the Agent (the caller must be granted it), the documents it reaches
// (its own, its Space's, Global), the ones the caller may change (Agent-level and Space-level ones: whoever manages
// the Agent, since every user of it reads them; Global ones: admins only), its tags (changed by its managers).
// Tags are per Agent, also on shared documents: a Space or Global document may carry the tags of several Agents,
// and each Agent sees, sets and removes only its own there (another Agent's tag ids are never shown to it).
import { Inject, Injectable } from '@nestjs/common';
import { accessibleAgent, manageDenied, type AgentView } from '#agents';
import { forbidden, permits, demand, asPrincipal, type PrincipalOrCaller } from '#access';
import { SPACES, type SpaceView } from '#spaces';
import { NotFoundError, ValidationError } from '#kernel';
import { findAll, READ_STORE, type ReadStore } from '#read-store';
import type { DocumentScope } from './document.events.js';
import {
  KNOWLEDGE_DOCUMENTS,
  KNOWLEDGE_TAGS,
  type DocumentView,
  type TagView,
} from './knowledge.read-model.js';
import { GLOBAL_OWNER, visibleOwners } from './visible-owners.js';

@Injectable()
export class KnowledgeAccess {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  agent(agentId: string, who: PrincipalOrCaller): Promise<AgentView> {
    return accessibleAgent(this.readStore, agentId, who);
  }

  /**
   * The Agent a write goes through, as `agent` (or, `tagging` its tag set, `taggableAgent`) loads it; null for the
   * platform (a process manager cascading a
   * deletion), which acts through no Agent and on the log, where the read models may no longer hold the Agent (a
   * replay): the policy is asked for its strictest case (`knowledge.write` on a Global document), and the decider
   * says whether there is anything to do.
   */
  async actingAgent(
    agentId: string | null,
    who: PrincipalOrCaller,
    tagging = false,
  ): Promise<AgentView | null> {
    if (agentId !== null && asPrincipal(who).kind !== 'platform')
      return tagging ? this.taggableAgent(agentId, who) : this.agent(agentId, who);
    const unscoped = { id: agentId ?? '', isPersonal: false, ownerUserId: null, spaceId: null };
    demand(
      who,
      'knowledge.write',
      { agent: unscoped, space: null, scope: 'global' },
      'only the platform changes Knowledge through no Agent',
    );
    return null;
  }

  /** The Agent whose tag set the principal changes: one it manages (`knowledge.tag`). */
  async taggableAgent(agentId: string, who: PrincipalOrCaller): Promise<AgentView> {
    const agent = await this.agent(agentId, who);
    const space = agent.spaceId ? await this.space(agent.spaceId) : null;
    if (!permits(who, 'knowledge.tag', { agent, space })) throw manageDenied(agent);
    return agent;
  }

  async visibleDocument(agent: AgentView, documentId: string): Promise<DocumentView> {
    const document = await this.readStore.reader<DocumentView>(KNOWLEDGE_DOCUMENTS).get(documentId);
    if (!document || !visibleOwners(agent).includes(document.ownerId))
      throw new NotFoundError('Document', documentId);
    return document;
  }

  async writableDocument(
    agent: AgentView,
    documentId: string,
    who: PrincipalOrCaller,
  ): Promise<DocumentView> {
    const document = await this.visibleDocument(agent, documentId);
    // A Space's documents are shared by every Agent of the Space: a grant on one of them is not the right to change them.
    await this.requireWrite(agent, document.scope, who, 'only admins change Global documents');
    return document;
  }

  async agentTag(agentId: string, tagId: string, param?: string): Promise<TagView> {
    const tag = await this.readStore.reader<TagView>(KNOWLEDGE_TAGS).get(tagId);
    if (!tag || tag.agentId !== agentId) {
      const error = new NotFoundError('Tag', tagId);
      throw param ? Object.assign(error, { param }) : error;
    }
    return tag;
  }

  /** The ids of the Agent's own tags: of a document's tags, the only ones it sees and replaces. */
  async ownTagIds(agent: Pick<AgentView, 'id'>): Promise<ReadonlySet<string>> {
    const tags = await findAll<TagView>(this.readStore, KNOWLEDGE_TAGS, { agentId: agent.id });
    return new Set(tags.map((tag) => tag.id));
  }

  /** The documents as this Agent sees them: with its own tags only (a shared one carries other Agents' too). */
  async seenBy(agent: Pick<AgentView, 'id'>, documents: readonly DocumentView[]): Promise<DocumentView[]> {
    if (documents.every((document) => document.tagIds.length === 0)) return [...documents];
    const own = await this.ownTagIds(agent);
    return documents.map((document) => ({
      ...document,
      tagIds: document.tagIds.filter((tagId) => own.has(tagId)),
    }));
  }

  async requireTags(agent: AgentView, tagIds: readonly string[]): Promise<void> {
    for (const tagId of tagIds) await this.agentTag(agent.id, tagId, 'tagIds');
  }

  /** The owner a new document of this scope gets: the Agent or its Space (their managers), or Global (admins only). */
  async ownerFor(agent: AgentView, scope: DocumentScope, who: PrincipalOrCaller): Promise<string> {
    if (scope === 'agent') {
      await this.requireWrite(agent, scope, who, '');
      return agent.id;
    }
    if (scope === 'space') {
      if (!agent.spaceId)
        throw new ValidationError('agent_has_no_space', `Agent '${agent.id}' is not in a Space`, 'scope');
      await this.requireWrite(agent, scope, who, '');
      return agent.spaceId;
    }
    await this.requireWrite(agent, scope, who, 'only admins add Global documents');
    return GLOBAL_OWNER;
  }

  /** The policy's `knowledge.write` for a document of this scope, through this Agent (one the principal uses). */
  private async requireWrite(
    agent: AgentView,
    scope: DocumentScope,
    who: PrincipalOrCaller,
    globalMessage: string,
  ): Promise<void> {
    const space = agent.spaceId ? await this.space(agent.spaceId) : null;
    if (permits(who, 'knowledge.write', { agent, space, scope })) return;
    // The Agent is one the principal uses (its loader asked): Global documents are refused for not being an admin.
    if (scope === 'global') throw forbidden('admin_required', globalMessage);
    // The manager's 403 `space_change_denied`, worded as for every manage action.
    throw manageDenied(agent);
  }

  private async space(spaceId: string): Promise<SpaceView | null> {
    return (await this.readStore.reader<SpaceView>(SPACES).get(spaceId)) ?? null;
  }
}
