// Agent commands and their thin handlers over the command runner.
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { CommandRunner } from '#platform';
import { agentDecider, type AgentCommand } from './agent.decider.js';
import { agentStreamId } from './agent.events.js';

export interface WriteResult {
  readonly id: string;
  readonly position: number;
}

/** One command class carries every Agent command: the decider's union says which. */
export class ExecuteAgentCommand {
  constructor(
    readonly command: AgentCommand,
    readonly context: CommandContext,
  ) {}
}

@CommandHandler(ExecuteAgentCommand)
export class AgentCommandHandler implements ICommandHandler<ExecuteAgentCommand, WriteResult> {
  constructor(private readonly commands: CommandRunner) {}

  async execute({ command, context }: ExecuteAgentCommand): Promise<WriteResult> {
    const result = await this.commands.run(agentStreamId(command.agentId), agentDecider, command, context);
    return { id: command.agentId, position: result.position };
  }
}
