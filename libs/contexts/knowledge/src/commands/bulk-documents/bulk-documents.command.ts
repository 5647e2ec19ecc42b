// One action over many documents. Each document is its own command (and its own stream), so the answer lists the
// outcome per document: one that is not found or not writable does not stop the others.
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { CommandContext } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { PlatformError } from '#kernel';
import type { WriteResult } from '#eventsourcing';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import type { BulkDocumentsBody, BulkResultDto } from '../../knowledge.schemas.js';
import { AttachDocumentTag } from '../attach-document-tag/attach-document-tag.command.js';
import { DeleteDocument } from '../delete-document/delete-document.command.js';
import { DetachDocumentTag } from '../detach-document-tag/detach-document-tag.command.js';
import { ReprocessDocument } from '../reprocess-document/reprocess-document.command.js';

// Each document's command is asked about on its own (the route's row is `{ each: 'knowledge.write' }`).
@Requires(KnowledgeResolver, (knowledge, { agentId }: BulkDocuments) => knowledge.use(agentId))
export class BulkDocuments extends Command<WriteResult & z.output<typeof BulkResultDto>> {
  constructor(
    readonly agentId: string,
    readonly body: z.output<typeof BulkDocumentsBody>,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(BulkDocuments)
export class BulkDocumentsHandler implements ICommandHandler<BulkDocuments> {
  constructor(
    private readonly bus: CommandBus,
    private readonly knowledge: KnowledgeReads,
  ) {}

  async execute({ agentId, body, context, principal }: BulkDocuments) {
    const agent = await this.knowledge.agent(agentId);
    if (body.tagId) await this.knowledge.requireTags(agent, [body.tagId]);
    const results = [];
    let position = 0;
    for (const documentId of new Set(body.documentIds)) {
      const command =
        body.action === 'addTag'
          ? new AttachDocumentTag(documentId, body.tagId!, agentId, context, principal)
          : body.action === 'removeTag'
            ? new DetachDocumentTag(documentId, body.tagId!, 'requested', agentId, context, principal)
            : body.action === 'delete'
              ? new DeleteDocument(documentId, 'requested', agentId, context, principal)
              : new ReprocessDocument(
                  documentId,
                  body.action === 'forceReprocess',
                  agentId,
                  context,
                  principal,
                );
      try {
        position = Math.max(position, (await this.bus.execute(command)).position);
        results.push({ documentId, ok: true });
      } catch (error) {
        if (!(error instanceof PlatformError)) throw error;
        results.push({ documentId, ok: false, error: { code: error.code, message: error.message } });
      }
    }
    return { id: agentId, position, action: body.action, results };
  }
}
