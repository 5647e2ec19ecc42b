// Deleting a document: by a caller, or for the system when its owner (Agent, Space) was deleted.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import type { WriteResult } from '#eventsourcing';
import { DocumentActionHandler, type ActingCaller } from '../document-action.js';

export class DeleteDocument extends Command<WriteResult> {
  constructor(
    readonly documentId: string,
    readonly reason: 'requested' | 'owner_deleted',
    readonly context: CommandContext,
    readonly by: ActingCaller,
  ) {
    super();
  }
}

@CommandHandler(DeleteDocument)
export class DeleteDocumentHandler extends DocumentActionHandler implements ICommandHandler<DeleteDocument> {
  execute(command: DeleteDocument): Promise<WriteResult> {
    return this.act(
      { type: 'DeleteDocument', documentId: command.documentId, reason: command.reason },
      command.context,
      command.by,
    );
  }
}
