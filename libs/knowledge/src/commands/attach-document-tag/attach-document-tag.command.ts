// Attaching one of the Agent's tags to a document.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import type { WriteResult } from '#eventsourcing';
import { DocumentActionHandler, type ActingCaller } from '../document-action.js';

export class AttachDocumentTag extends Command<WriteResult> {
  constructor(
    readonly documentId: string,
    readonly tagId: string,
    readonly context: CommandContext,
    readonly by: ActingCaller,
  ) {
    super();
  }
}

@CommandHandler(AttachDocumentTag)
export class AttachDocumentTagHandler
  extends DocumentActionHandler
  implements ICommandHandler<AttachDocumentTag>
{
  execute(command: AttachDocumentTag): Promise<WriteResult> {
    return this.act(
      { type: 'AttachDocumentTag', documentId: command.documentId, tagId: command.tagId },
      command.context,
      command.by,
    );
  }
}
