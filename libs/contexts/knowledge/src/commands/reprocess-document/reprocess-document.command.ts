// Processing a document again (forced: even when its content is unchanged).
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
export class ReprocessDocument extends Command<WriteResult> implements DocumentActionCommand {
  constructor(
    readonly documentId: string,
    readonly force: boolean,
    readonly agentId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
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
      command,
    );
  }
}
