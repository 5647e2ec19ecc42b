// Replacing a deleted personal Agent: personal Agents can no longer be deleted, but logs written before could hold
// the deletion of one. The platform (the personal-agent process) sends this for every deleted Agent; only a deleted
// personal Agent gets a replacement (its user's, with the same name), once: its id derives from the deletion.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { sha256 } from '#kernel';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { ask, Requires, type Principal } from '#access';
import { personalSpaceId } from '#spaces';
import { agentDecider } from '../../agent.decider.js';
import { agentStreamId } from '../../agent.events.js';
import { AgentRules } from '../../agent-rules.js';

/** The personal Agent that replaces one deleted by the event `deletionEventId` (derived: a replay makes the same). */
export const replacementPersonalAgentId = (userId: string, deletionEventId: string): string =>
  `agt_personal_${sha256(`${userId}:${deletionEventId}`).slice(0, 24)}`;

@Requires(() => ask('agent.create', null, 'this principal may not create Agents'))
export class ReplacePersonalAgent extends Command<WriteResult> {
  constructor(
    readonly deletedAgentId: string,
    /** The AgentDeleted event: the replacement's id derives from it. */
    readonly deletionEventId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ReplacePersonalAgent)
export class ReplacePersonalAgentHandler implements ICommandHandler<ReplacePersonalAgent> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly rules: AgentRules,
  ) {}

  async execute(command: ReplacePersonalAgent): Promise<WriteResult> {
    const { deletedAgentId, deletionEventId, context } = command;
    // Two streams: the deleted Agent says whether (and for whom) there is a replacement to make.
    const { state } = await this.aggregates.load(agentStreamId(deletedAgentId), agentDecider);
    if (state.status !== 'deleted' || !state.isPersonal || !state.ownerUserId)
      return { id: deletedAgentId, position: 0 };
    const agentId = replacementPersonalAgentId(state.ownerUserId, deletionEventId);
    const name = `${state.name.replace(/'s assistant$/, '')}'s assistant`;
    const result = await this.aggregates.decide(
      agentStreamId(agentId),
      agentDecider,
      {
        type: 'CreatePersonalAgent',
        agentId,
        ownerUserId: state.ownerUserId,
        spaceId: personalSpaceId(state.ownerUserId),
        settings: { name, model: this.rules.defaultChatModel() },
      },
      context,
    );
    return { id: agentId, position: result.position };
  }
}
