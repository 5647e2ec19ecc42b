// Processing a document again (forced: even when its content is unchanged).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import type { WriteResult } from '#eventsourcing';
import { DocumentActionHandler, type ActingCaller } from '../document-action.js';

export class ReprocessDocument extends Command<WriteResult> {
  constructor(
    readonly documentId: string,
    readonly force: boolean,
    readonly context: CommandContext,
    readonly by: ActingCaller,
  ) {
    super();
  }
}

@CommandHandler(ReprocessDocument)
export class ReprocessDocumentHandler
  extends DocumentActionHandler
  implements ICommandHandler<ReprocessDocument>
{
  execute(command: ReprocessDocument): Promise<WriteResult> {
    return this.act(
      { type: 'RequestReprocessing', documentId: command.documentId, force: command.force },
      command.context,
      command.by,
    );
  }
}
