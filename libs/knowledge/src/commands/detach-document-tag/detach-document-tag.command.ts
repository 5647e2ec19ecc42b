// Detaching a tag from a document: by a caller, or for the system when the tag was deleted.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import type { WriteResult } from '#eventsourcing';
import { DocumentActionHandler, type ActingCaller } from '../document-action.js';

export class DetachDocumentTag extends Command<WriteResult> {
  constructor(
    readonly documentId: string,
    readonly tagId: string,
    readonly context: CommandContext,
    readonly by: ActingCaller,
  ) {
    super();
  }
}

@CommandHandler(DetachDocumentTag)
export class DetachDocumentTagHandler
  extends DocumentActionHandler
  implements ICommandHandler<DetachDocumentTag>
{
  execute(command: DetachDocumentTag): Promise<WriteResult> {
    return this.act(
      { type: 'DetachDocumentTag', documentId: command.documentId, tagId: command.tagId },
      command.context,
      command.by,
    );
  }
}
