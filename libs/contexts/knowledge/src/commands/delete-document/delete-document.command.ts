// Deleting a document: by a principal through one of its Agents, or by the platform when the document's owner (Agent,
// Space) was deleted (a document gone meanwhile is then no error: the decider's).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import {
  documentActionAsks,
  DocumentActionHandler,
  type DocumentActionCommand,
} from '../document-action.command.js';

@Requires(KnowledgeResolver, documentActionAsks)
export class DeleteDocument extends Command<WriteResult> implements DocumentActionCommand {
  constructor(
    readonly documentId: string,
    readonly reason: 'requested' | 'owner_deleted',
    readonly agentId: string | null,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(DeleteDocument)
export class DeleteDocumentHandler extends DocumentActionHandler implements ICommandHandler<DeleteDocument> {
  execute(command: DeleteDocument): Promise<WriteResult> {
    return this.act(
      { type: 'DeleteDocument', documentId: command.documentId, reason: command.reason },
      command,
    );
  }
}
