// Process manager: a deleted tag leaves every document that carried it. An owner cascade tag → documents carrying it,
// one state document per (tag, document); when the tag is deleted it detaches it from each of them (each document is
// its own stream and its own command), and a tag attached later by a request that raced with the deletion is detached
// as soon as the attachment appears. The platform sends the commands, with event ids derived from their cause; the
// decider detaches only a tag the document still carries, so a replay appends nothing.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { causedBy, defineProcess, ownerCascade, type EventHandlers } from '#eventsourcing';
import { platformPrincipal } from '#access';
import { DetachDocumentTag } from './commands/detach-document-tag/detach-document-tag.command.js';
import type { DocumentEvent } from './document.events.js';
import type { TagEvent } from './tag.events.js';

export const TAG_DELETION_PROCESS = 'knowledge-tag-deletion-process';

const PLATFORM = platformPrincipal(TAG_DELETION_PROCESS);

type Read = Extract<
  DocumentEvent | TagEvent,
  { type: 'DocumentAdded' | 'DocumentTagAttached' | 'DocumentTagDetached' | 'KnowledgeTagDeleted' }
>;

const tagCarriers = ownerCascade<Read>({
  state: 'pm_knowledge_tag',
  on: {
    DocumentAdded: ({ data }) => data.tagIds.map((tagId) => ({ add: data.documentId, to: tagId })),
    DocumentTagAttached: ({ data }) => ({ add: data.documentId, to: data.tagId }),
    DocumentTagDetached: ({ data }) => ({ remove: data.documentId, from: data.tagId }),
    KnowledgeTagDeleted: ({ data }) => ({ ownerGone: data.tagId }),
  },
});

@Injectable()
export class KnowledgeTagDeletionProcess extends defineProcess<Read>({
  name: TAG_DELETION_PROCESS,
  version: 2,
  collections: tagCarriers.collections,
}) {
  constructor(private readonly bus: CommandBus) {
    super();
  }

  readonly on: EventHandlers<Read> = tagCarriers.handlers(async (document, cause) => {
    const tagId = document.ownerId;
    await this.bus.execute(
      new DetachDocumentTag(document.id, tagId, 'tag_deleted', null, causedBy(cause, document.id), PLATFORM),
    );
  });
}
