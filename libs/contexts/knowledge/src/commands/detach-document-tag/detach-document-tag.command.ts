// Detaching a tag from a document: by a principal through the tag's Agent, or by the platform when the tag was deleted
// (the tag-deletion process; a document gone or without the tag meanwhile is then no error: the decider's).
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
export class DetachDocumentTag extends Command<WriteResult> implements DocumentActionCommand {
  constructor(
    readonly documentId: string,
    readonly tagId: string,
    readonly reason: 'requested' | 'tag_deleted',
    readonly agentId: string | null,
    readonly context: CommandContext,
    readonly principal: Principal,
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
    const { documentId, tagId, reason } = command;
    return this.act({ type: 'DetachDocumentTag', documentId, tagId, reason }, command);
  }
}
