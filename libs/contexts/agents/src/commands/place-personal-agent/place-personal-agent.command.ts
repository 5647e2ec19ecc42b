// Putting a personal Agent created before personal Spaces into its user's private personal Space (the
// personal-agent process, for the platform). The decider does it once: an Agent already in a Space is left alone.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { ask, Requires, type Principal } from '#access';
import { agentDecider } from '../../agent.decider.js';
import { agentStreamId } from '../../agent.events.js';

@Requires(() => ask('platform.step', null, 'personal Agents are placed by the platform'))
export class PlacePersonalAgent extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly spaceId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(PlacePersonalAgent)
export class PlacePersonalAgentHandler implements ICommandHandler<PlacePersonalAgent> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ agentId, spaceId, context }: PlacePersonalAgent): Promise<WriteResult> {
    const result = await this.aggregates.decide(
      agentStreamId(agentId),
      agentDecider,
      { type: 'PlacePersonalAgent', agentId, spaceId },
      context,
    );
    return { id: agentId, position: result.position };
  }
}
