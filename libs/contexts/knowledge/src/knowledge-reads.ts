// What the Knowledge handlers read once the gate has asked (./knowledge-resolver.ts): the Agent, the documents it
// reaches (its own, its Space's, Global; another is 404), its tags. Tags are per Agent, also on shared documents: a
// Space or Global document may carry the tags of several Agents, and each Agent sees, sets and removes only its own
// there (another Agent's tag ids are never shown to it).
import { Inject, Injectable } from '@nestjs/common';
import { agentById, type AgentView } from '#agents';
import { NotFoundError } from '#kernel';
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
export class KnowledgeReads {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  /** The Agent, or 404. */
  agent(agentId: string): Promise<AgentView> {
    return agentById(this.readStore, agentId);
  }

  async visibleDocument(agent: AgentView, documentId: string): Promise<DocumentView> {
    const document = await reachedDocument(this.readStore, agent, documentId);
    if (!document) throw new NotFoundError('Document', documentId);
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
}

/** The document, if the Agent reaches it (its own, its Space's, Global); else null. */
export async function reachedDocument(
  readStore: ReadStore,
  agent: Pick<AgentView, 'id' | 'spaceId'>,
  documentId: string,
): Promise<DocumentView | null> {
  const document = await readStore.reader<DocumentView>(KNOWLEDGE_DOCUMENTS).get(documentId);
  return document && visibleOwners(agent).includes(document.ownerId) ? document : null;
}

/** The owner a new document of this scope gets: the Agent, its Space (the resolver asked that it has one), or Global. */
export const ownerFor = (agent: AgentView, scope: DocumentScope): string =>
  scope === 'agent' ? agent.id : scope === 'space' ? agent.spaceId! : GLOBAL_OWNER;
