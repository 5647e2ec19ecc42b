// Process manager: when an Agent is deleted, its documents and its tags go too; when a Space is deleted, its
// Space-level documents go (its Agents' own documents follow through their AgentDeleted). It keeps which documents
// each owner holds, and which tags each Agent created (a tag deleted meanwhile is skipped), in its own checkpointed
// state; a document added to an owner
// that is already gone is deleted as soon as it appears. Commands carry event ids derived from their cause, so a
// replay appends nothing.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { DeleteDocument } from './commands/delete-document/delete-document.command.js';
import { DeleteTag } from './commands/delete-tag/delete-tag.command.js';
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
import type { AgentEvent } from '#agents';
import type { SpaceEvent } from '#spaces';
import type { DocumentEvent } from './document.events.js';
import { tagDecider } from './tag.decider.js';
import { tagStreamId, type TagEvent } from './tag.events.js';

interface OwnerHoldings {
  readonly id: string;
  readonly documentIds: readonly string[];
  readonly tagIds: readonly string[];
  readonly deleted: boolean;
}

const OWNERS = 'pm_knowledge_owners';
const DOCUMENT_OWNER = 'pm_knowledge_document_owner';

type OwnerDeletionRead = Extract<
  DocumentEvent | TagEvent | AgentEvent | SpaceEvent,
  { type: 'DocumentAdded' | 'DocumentDeleted' | 'KnowledgeTagCreated' | 'AgentDeleted' | 'SpaceDeleted' }
>;

@Injectable()
export class KnowledgeOwnerDeletionProcess implements Projector {
  readonly name = 'knowledge-owner-deletion-process';
  readonly version = 1;
  readonly collections = [{ name: OWNERS }, { name: DOCUMENT_OWNER }];

  constructor(
    private readonly commands: CommandRunner,
    private readonly bus: CommandBus,
  ) {}

  private readonly handlers = eventHandlers<OwnerDeletionRead>({
    DocumentAdded: (event, context) => this.handle(event, context),
    DocumentDeleted: (event, context) => this.handle(event, context),
    KnowledgeTagCreated: (event, context) => this.handle(event, context),
    AgentDeleted: (event, context) => this.handle(event, context),
    SpaceDeleted: (event, context) => this.handle(event, context),
  });
  readonly eventTypes = this.handlers.eventTypes;

  project(event: EventEnvelope, context: ProjectionContext) {
    return this.handlers.project(event, context);
  }

  private async handle(event: EnvelopeOf<OwnerDeletionRead>, context: ProjectionContext): Promise<WriteOp[]> {
    const holdings = async (ownerId: string): Promise<OwnerHoldings> =>
      (await context.get<OwnerHoldings>(OWNERS, ownerId)) ?? {
        id: ownerId,
        documentIds: [],
        tagIds: [],
        deleted: false,
      };
    const save = (doc: OwnerHoldings): WriteOp => ({ kind: 'upsert', collection: OWNERS, doc: { ...doc } });

    switch (event.type) {
      case 'DocumentAdded': {
        const { documentId, ownerId } = event.data;
        const owner = await holdings(ownerId);
        if (owner.deleted) {
          await this.deleteDocument(documentId, event);
          return [];
        }
        return [
          save({
            ...owner,
            documentIds: [...owner.documentIds.filter((id) => id !== documentId), documentId],
          }),
          { kind: 'upsert', collection: DOCUMENT_OWNER, doc: { id: documentId, ownerId } },
        ];
      }
      case 'DocumentDeleted': {
        const index = await context.get<{ id: string; ownerId: string }>(
          DOCUMENT_OWNER,
          event.data.documentId,
        );
        if (!index) return [];
        const owner = await holdings(index.ownerId);
        return [
          { kind: 'delete', collection: DOCUMENT_OWNER, id: index.id },
          save({ ...owner, documentIds: owner.documentIds.filter((id) => id !== index.id) }),
        ];
      }
      case 'KnowledgeTagCreated': {
        const owner = await holdings(event.data.agentId);
        if (owner.deleted) {
          await this.deleteTag(event.data.tagId, event);
          return [];
        }
        return [save({ ...owner, tagIds: [...owner.tagIds, event.data.tagId] })];
      }
      case 'AgentDeleted':
        return this.ownerGone(await holdings(event.data.agentId), event);
      case 'SpaceDeleted':
        return this.ownerGone(await holdings(event.data.spaceId), event);
      default:
        return [];
    }
  }

  private async ownerGone(owner: OwnerHoldings, cause: EventEnvelope): Promise<WriteOp[]> {
    for (const documentId of owner.documentIds) await this.deleteDocument(documentId, cause);
    for (const tagId of owner.tagIds) await this.deleteTag(tagId, cause);
    return [
      {
        kind: 'upsert',
        collection: OWNERS,
        doc: { id: owner.id, documentIds: [], tagIds: [], deleted: true },
      },
    ];
  }

  private async deleteDocument(documentId: string, cause: EventEnvelope): Promise<void> {
    await this.bus.execute(
      new DeleteDocument(documentId, 'owner_deleted', causedBy(cause, documentId), null),
    );
  }

  private async deleteTag(tagId: string, cause: EventEnvelope): Promise<void> {
    const { state } = await this.commands.load(tagStreamId(tagId), tagDecider);
    if (state.status !== 'active') return;
    await this.bus.execute(new DeleteTag(state.agentId, tagId, causedBy(cause, tagId), null));
  }
}
