// Process manager: when an Agent is deleted, its documents and its tags go too; when a Space is deleted, its
// Space-level documents go (its Agents' own documents follow through their AgentDeleted). An owner cascade: owner →
// documents and tags, one state document per child (a tag deleted meanwhile is skipped); a document added to an owner
// that is already gone is deleted as soon as it appears. The platform sends the commands, with event ids derived from
// their cause; the deciders delete a document or a tag once, so a replay appends nothing.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { causedBy, defineProcess, ownerCascade, type EventHandlers } from '#eventsourcing';
import { platformPrincipal } from '#access';
import type { AgentEvent } from '#agents';
import type { SpaceEvent } from '#spaces';
import { DeleteDocument } from './commands/delete-document/delete-document.command.js';
import { DeleteTag } from './commands/delete-tag/delete-tag.command.js';
import type { DocumentEvent } from './document.events.js';
import type { TagEvent } from './tag.events.js';

type Read = Extract<
  DocumentEvent | TagEvent | AgentEvent | SpaceEvent,
  { type: 'DocumentAdded' | 'DocumentDeleted' | 'KnowledgeTagCreated' | 'AgentDeleted' | 'SpaceDeleted' }
>;

const PLATFORM = platformPrincipal('knowledge-owner-deletion-process');

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
  constructor(private readonly bus: CommandBus) {
    super();
  }

  readonly on: EventHandlers<Read> = ownerKnowledge.handlers(async (child, cause) => {
    const context = causedBy(cause, child.id);
    await this.bus.execute(
      child.kind === 'tag'
        ? new DeleteTag(child.ownerId, child.id, 'owner_deleted', context, PLATFORM)
        : new DeleteDocument(child.id, 'owner_deleted', null, context, PLATFORM),
    );
  });
}
