// Deleting an Agent: by a principal that manages it (may change its Space; a grant alone is not enough), or by the
// platform when its Space was deleted (the Space-deletion process). Deleting a deleted Agent appends nothing.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import type { Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { authorizeManagement } from '../../accessible-agent.js';
import { agentDecider, type AgentCommand } from '../../agent.decider.js';
import { agentStreamId } from '../../agent.events.js';

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
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ agentId, reason, context, principal }: DeleteAgent): Promise<WriteResult> {
    await authorizeManagement(this.readStore, agentId, principal);
    const result = await this.aggregates.decide(
      agentStreamId(agentId),
      agentDecider,
      { type: 'DeleteAgent', agentId, reason },
      context,
    );
    return { id: agentId, position: result.position };
  }
}
