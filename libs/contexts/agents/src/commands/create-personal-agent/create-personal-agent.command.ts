// Creating a user's personal Agent (no Space, the instance's default chat model): by the platform (the personal-agent
// process), with the id it derives. The decider makes it once: an Agent that exists already is left as it is.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { sha256 } from '#kernel';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { ask, Requires, type Principal } from '#access';
import { personalSpaceId } from '#spaces';
import { agentDecider } from '../../agent.decider.js';
import { agentStreamId } from '../../agent.events.js';
import { AgentRules } from '../../agent-rules.js';

/** A user's personal Agent's id: derived from the user, so a replayed registration names the same Agent. */
export const personalAgentId = (userId: string): string => `agt_personal_${sha256(userId).slice(0, 24)}`;

@Requires(() => ask('agent.create', null, 'this principal may not create Agents'))
export class CreatePersonalAgent extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly ownerUserId: string,
    /** The Agent's name ("Ada's assistant"). */
    readonly name: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(CreatePersonalAgent)
export class CreatePersonalAgentHandler implements ICommandHandler<CreatePersonalAgent> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly rules: AgentRules,
  ) {}

  async execute({ agentId, ownerUserId, name, context }: CreatePersonalAgent): Promise<WriteResult> {
    const result = await this.aggregates.decide(
      agentStreamId(agentId),
      agentDecider,
      {
        type: 'CreatePersonalAgent',
        agentId,
        ownerUserId,
        spaceId: personalSpaceId(ownerUserId),
        settings: { name, model: this.rules.defaultChatModel() },
      },
      context,
    );
    return { id: agentId, position: result.position };
  }
}
