// Renaming a document, replacing its content (processed again) and setting the Agent's tags on it (other Agents'
// tags on a shared document stay): one decision, one append.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { CommandContext } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { AggregateRepository } from '#eventsourcing';
import { declaredTextType, DocumentBytes } from '../../document-bytes.js';
import { documentDecider } from '../../document.decider.js';
import { documentStreamId } from '../../document.events.js';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import type { ChangeDocumentBody } from '../../knowledge.schemas.js';
import type { DocumentWrite } from '../add-document/add-document.command.js';

@Requires(KnowledgeResolver, (knowledge, { agentId, documentId }: ChangeDocument) =>
  knowledge.change(agentId, documentId),
)
export class ChangeDocument extends Command<DocumentWrite> {
  constructor(
    readonly agentId: string,
    readonly documentId: string,
    readonly change: z.output<typeof ChangeDocumentBody>,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ChangeDocument)
export class ChangeDocumentHandler implements ICommandHandler<ChangeDocument> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly knowledge: KnowledgeReads,
    private readonly bytes: DocumentBytes,
  ) {}

  async execute({ agentId, documentId, change, context }: ChangeDocument): Promise<DocumentWrite> {
    const agent = await this.knowledge.agent(agentId);
    const document = await this.knowledge.visibleDocument(agent, documentId);
    if (change.tagIds) await this.knowledge.requireTags(agent, change.tagIds);
    const text = change.text !== undefined ? Buffer.from(change.text, 'utf8') : null;
    const content = text
      ? await this.bytes.store(text, declaredTextType(change.name ?? document.name))
      : null;
    const result = await this.aggregates.decide(
      documentStreamId(documentId),
      documentDecider,
      {
        type: 'ChangeDocument',
        documentId,
        ...(change.name !== undefined ? { name: change.name } : {}),
        ...(content ? { content } : {}),
        ...(change.tagIds
          ? { tagIds: change.tagIds, ownTagIds: [...(await this.knowledge.ownTagIds(agent))] }
          : {}),
      },
      context,
    );
    const stored = text && content ? this.bytes.keepStored(text, content) : Promise.resolve();
    stored.catch(() => undefined);
    return { id: documentId, position: result.position, stored };
  }
}
