// Knowledge commands and their thin handlers over the command runner.
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { CommandRunner } from '#platform';
import { documentDecider, type DocumentCommand } from './document.decider.js';
import { documentStreamId } from './document.events.js';
import { tagDecider, type TagCommand } from './tag.decider.js';
import { tagStreamId } from './tag.events.js';
import { summaryIndexDecider, type SummaryIndexCommand } from './summary/summary-index.decider.js';
import { summaryIndexStreamId } from './summary/summary-index.events.js';

export interface WriteResult {
  readonly id: string;
  readonly position: number;
}

export class ExecuteDocumentCommand {
  constructor(
    readonly command: DocumentCommand,
    readonly context: CommandContext,
  ) {}
}

export class ExecuteTagCommand {
  constructor(
    readonly command: TagCommand,
    readonly context: CommandContext,
  ) {}
}

export class ExecuteSummaryIndexCommand {
  constructor(
    readonly command: SummaryIndexCommand,
    readonly context: CommandContext,
  ) {}
}

@CommandHandler(ExecuteDocumentCommand)
export class DocumentCommandHandler implements ICommandHandler<ExecuteDocumentCommand, WriteResult> {
  constructor(private readonly commands: CommandRunner) {}

  async execute({ command, context }: ExecuteDocumentCommand): Promise<WriteResult> {
    const result = await this.commands.run(
      documentStreamId(command.documentId),
      documentDecider,
      command,
      context,
    );
    return { id: command.documentId, position: result.position };
  }
}

@CommandHandler(ExecuteTagCommand)
export class TagCommandHandler implements ICommandHandler<ExecuteTagCommand, WriteResult> {
  constructor(private readonly commands: CommandRunner) {}

  async execute({ command, context }: ExecuteTagCommand): Promise<WriteResult> {
    const result = await this.commands.run(tagStreamId(command.tagId), tagDecider, command, context);
    return { id: command.tagId, position: result.position };
  }
}

@CommandHandler(ExecuteSummaryIndexCommand)
export class SummaryIndexCommandHandler implements ICommandHandler<ExecuteSummaryIndexCommand, WriteResult> {
  constructor(private readonly commands: CommandRunner) {}

  async execute({ command, context }: ExecuteSummaryIndexCommand): Promise<WriteResult> {
    const result = await this.commands.run(
      summaryIndexStreamId(command.agentId),
      summaryIndexDecider,
      command,
      context,
    );
    return { id: command.agentId, position: result.position };
  }
}
