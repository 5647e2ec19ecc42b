// Changing an Agent's settings, and moving it into another Space, by a principal that manages the Agent (may change its
// Space; a grant alone is not enough); a move also needs the right to change the target Space and passes the checks
// other contexts registered (AgentMoveChecks). Each changed setting is recorded as its own event (the decider's).
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { agentById, AgentResolver } from '../../agent-resolver.js';
import { agentDecider, type AgentCommand } from '../../agent.decider.js';
import { agentStreamId } from '../../agent.events.js';
import { AgentMoveChecks } from '../../agent-move-checks.js';
import { AgentRules } from '../../agent-rules.js';

@Requires(AgentResolver, (agents, { agentId, change, principal }: ChangeAgent) =>
  agents.change(agentId, change.spaceId, principal),
)
export class ChangeAgent extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly change: Pick<Extract<AgentCommand, { type: 'ChangeAgent' }>, 'spaceId' | 'settings'>,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ChangeAgent)
export class ChangeAgentHandler implements ICommandHandler<ChangeAgent> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly rules: AgentRules,
    private readonly moveChecks: AgentMoveChecks,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ agentId, change, context }: ChangeAgent): Promise<WriteResult> {
    const agent = await agentById(this.readStore, agentId);
    const { spaceId, settings } = change;
    // Naming the Agent's current Space is no move: only a real move checks the target.
    // What other contexts refuse in the target Space (a Skill name it already uses: 409 skill_name_taken).
    if (spaceId !== undefined && spaceId !== agent.spaceId) await this.moveChecks.require(agent, spaceId);
    this.rules.requireChatModel(settings.model);
    const result = await this.aggregates.decide(
      agentStreamId(agentId),
      agentDecider,
      { type: 'ChangeAgent', agentId, ...(spaceId !== undefined ? { spaceId } : {}), settings },
      context,
    );
    return { id: agentId, position: result.position };
  }
}
