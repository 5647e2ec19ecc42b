// Process manager: when an Agent is deleted, its documents and its tags go too; when a Space is deleted, its
// Space-level documents go (its Agents' own documents follow through their AgentDeleted). An owner cascade: owner →
// documents and tags, one state document per child (a tag deleted meanwhile is skipped); a document added to an owner
// that is already gone is deleted as soon as it appears. Commands carry event ids derived from their cause, so a
// replay appends nothing.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { EventEnvelope } from '#kernel';
import { causedBy, defineProcess, ownerCascade, type EventHandlers } from '#eventsourcing';
import { AggregateRepository } from '#eventsourcing';
import type { AgentEvent } from '#agents';
import type { SpaceEvent } from '#spaces';
import { DeleteDocument } from './commands/delete-document/delete-document.command.js';
import { DeleteTag } from './commands/delete-tag/delete-tag.command.js';
import type { DocumentEvent } from './document.events.js';
import { tagDecider } from './tag.decider.js';
import { tagStreamId, type TagEvent } from './tag.events.js';

type Read = Extract<
  DocumentEvent | TagEvent | AgentEvent | SpaceEvent,
  { type: 'DocumentAdded' | 'DocumentDeleted' | 'KnowledgeTagCreated' | 'AgentDeleted' | 'SpaceDeleted' }
>;

const ownerKnowledge = ownerCascade<Read>({
  state: 'pm_knowledge_owner',
  on: {
    DocumentAdded: ({ data }) => ({ add: data.documentId, to: data.ownerId, as: 'document' }),
    DocumentDeleted: ({ data }) => ({ remove: data.documentId }),
    KnowledgeTagCreated: ({ data }) => ({ add: data.tagId, to: data.agentId, as: 'tag' }),
    AgentDeleted: ({ data }) => ({ ownerGone: data.agentId }),
    SpaceDeleted: ({ data }) => ({ ownerGone: data.spaceId }),
  },
});

@Injectable()
export class KnowledgeOwnerDeletionProcess extends defineProcess<Read>({
  name: 'knowledge-owner-deletion-process',
  version: 2,
  collections: ownerKnowledge.collections,
}) {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly bus: CommandBus,
  ) {
    super();
  }

  readonly on: EventHandlers<Read> = ownerKnowledge.handlers((child, cause) =>
    child.kind === 'tag' ? this.deleteTag(child.id, cause) : this.deleteDocument(child.id, cause),
  );

  private async deleteDocument(documentId: string, cause: EventEnvelope): Promise<void> {
    await this.bus.execute(
      new DeleteDocument(documentId, 'owner_deleted', causedBy(cause, documentId), null),
    );
  }

  private async deleteTag(tagId: string, cause: EventEnvelope): Promise<void> {
    const { state } = await this.aggregates.load(tagStreamId(tagId), tagDecider);
    if (state.status !== 'active') return;
    await this.bus.execute(new DeleteTag(state.agentId, tagId, causedBy(cause, tagId), null));
  }
}
