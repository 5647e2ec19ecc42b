// Deleting an Agent: by a caller that manages it (may change its Space; a grant alone is not enough), or for the
// system when its Space was deleted.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import type { Caller } from '#identity';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { READ_STORE, type ReadStore } from '#read-store';
import { manageableAgent } from '../../accessible-agent.js';
import { agentDecider, type AgentCommand } from '../../agent.decider.js';
import { agentStreamId } from '../../agent.events.js';

export class DeleteAgent extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly reason: Extract<AgentCommand, { type: 'DeleteAgent' }>['reason'],
    readonly context: CommandContext,
    /** The caller whose grants decide; null when the system acts. */
    readonly caller: Caller | null,
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

  async execute({ agentId, reason, context, caller }: DeleteAgent): Promise<WriteResult> {
    if (caller) await manageableAgent(this.readStore, agentId, caller);
    const result = await this.aggregates.decide(
      agentStreamId(agentId),
      agentDecider,
      { type: 'DeleteAgent', agentId, reason },
      context,
    );
    return { id: agentId, position: result.position };
  }
}
