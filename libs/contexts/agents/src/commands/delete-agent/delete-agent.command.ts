// Deleting an Agent: by a principal that manages it (may change its Space; a grant alone is not enough), or by the
// platform when its Space was deleted (the Space-deletion process). Deleting a deleted Agent appends nothing.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { AgentResolver } from '../../agent-resolver.js';
import { agentDecider, type AgentCommand } from '../../agent.decider.js';
import { agentStreamId } from '../../agent.events.js';

@Requires(AgentResolver, (agents, { agentId, principal }: DeleteAgent) =>
  agents.manageOnLog(agentId, principal),
)
export class DeleteAgent extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly reason: Extract<AgentCommand, { type: 'DeleteAgent' }>['reason'],
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(DeleteAgent)
export class DeleteAgentHandler implements ICommandHandler<DeleteAgent> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ agentId, reason, context }: DeleteAgent): Promise<WriteResult> {
    const result = await this.aggregates.decide(
      agentStreamId(agentId),
      agentDecider,
      { type: 'DeleteAgent', agentId, reason },
      context,
    );
    return { id: agentId, position: result.position };
  }
}
