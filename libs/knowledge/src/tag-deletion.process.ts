// Process manager: a deleted tag leaves every document that carried it. It keeps, per tag, the documents carrying it
// in its own checkpointed state; when the tag is deleted it detaches it from each of them (each document is its own
// stream and its own command), and a tag attached later by a request that raced with the deletion is detached as
// soon as the attachment appears. Commands carry event ids derived from their cause, so a replay appends nothing.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { DetachDocumentTag } from './commands/detach-document-tag/detach-document-tag.command.js';
import type { EventEnvelope } from '#kernel';
import {
  causedBy,
  eventHandlers,
  type EnvelopeOf,
  type ProjectionContext,
  type Projector,
} from '#eventsourcing';
import type { WriteOp } from '#read-store';
import { CommandRunner } from '#platform';
import { documentDecider } from './document.decider.js';
import { documentStreamId, type DocumentEvent } from './document.events.js';
import type { TagEvent } from './tag.events.js';

interface TagCarriers {
  readonly id: string;
  readonly documentIds: readonly string[];
  readonly deleted: boolean;
}

const TAG_CARRIERS = 'pm_knowledge_tag_carriers';
export const TAG_DELETION_PROCESS = 'knowledge-tag-deletion-process';

type TagDeletionRead = Extract<
  DocumentEvent | TagEvent,
  { type: 'DocumentAdded' | 'DocumentTagAttached' | 'DocumentTagDetached' | 'KnowledgeTagDeleted' }
>;

@Injectable()
export class KnowledgeTagDeletionProcess implements Projector {
  readonly name = TAG_DELETION_PROCESS;
  readonly version = 1;
  readonly collections = [{ name: TAG_CARRIERS }];

  constructor(
    private readonly commands: CommandRunner,
    private readonly bus: CommandBus,
  ) {}

  private readonly handlers = eventHandlers<TagDeletionRead>({
    DocumentAdded: (event, context) => this.handle(event, context),
    DocumentTagAttached: (event, context) => this.handle(event, context),
    DocumentTagDetached: (event, context) => this.handle(event, context),
    KnowledgeTagDeleted: (event, context) => this.handle(event, context),
  });
  readonly eventTypes = this.handlers.eventTypes;

  project(event: EventEnvelope, context: ProjectionContext) {
    return this.handlers.project(event, context);
  }

  private async handle(event: EnvelopeOf<TagDeletionRead>, context: ProjectionContext): Promise<WriteOp[]> {
    const carriers = async (tagId: string): Promise<TagCarriers> =>
      (await context.get<TagCarriers>(TAG_CARRIERS, tagId)) ?? { id: tagId, documentIds: [], deleted: false };
    const save = (doc: TagCarriers): WriteOp => ({
      kind: 'upsert',
      collection: TAG_CARRIERS,
      doc: { ...doc },
    });
    const carried = async (tagId: string, documentId: string): Promise<WriteOp[]> => {
      const tag = await carriers(tagId);
      if (tag.deleted) {
        await this.detach(documentId, tagId, event);
        return [];
      }
      return [
        save({ ...tag, documentIds: [...tag.documentIds.filter((id) => id !== documentId), documentId] }),
      ];
    };

    switch (event.type) {
      case 'DocumentAdded': {
        const ops: WriteOp[] = [];
        for (const tagId of event.data.tagIds) ops.push(...(await carried(tagId, event.data.documentId)));
        return ops;
      }
      case 'DocumentTagAttached':
        return carried(event.data.tagId, event.data.documentId);
      case 'DocumentTagDetached': {
        const tag = await carriers(event.data.tagId);
        return [save({ ...tag, documentIds: tag.documentIds.filter((id) => id !== event.data.documentId) })];
      }
      case 'KnowledgeTagDeleted': {
        const tag = await carriers(event.data.tagId);
        for (const documentId of tag.documentIds) await this.detach(documentId, tag.id, event);
        return [save({ id: tag.id, documentIds: [], deleted: true })];
      }
      default:
        return [];
    }
  }

  /** Detaches the tag from a document that still exists (a deleted document has nothing to detach). */
  private async detach(documentId: string, tagId: string, cause: EventEnvelope): Promise<void> {
    const stream = documentStreamId(documentId);
    const { state } = await this.commands.load(stream, documentDecider);
    if (!('tagIds' in state) || !state.tagIds.includes(tagId)) return;
    await this.bus.execute(new DetachDocumentTag(documentId, tagId, causedBy(cause, documentId), null));
  }
}
