// Attaching one of the Agent's tags to a document.
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
export class AttachDocumentTag extends Command<WriteResult> implements DocumentActionCommand {
  constructor(
    readonly documentId: string,
    readonly tagId: string,
    readonly agentId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
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
      command,
    );
  }
}
