// Changing an Agent's system prompt: by a principal that manages the Agent (a grant alone is not enough).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { AgentResolver } from '../../agent-resolver.js';
import { agentDecider } from '../../agent.decider.js';
import { agentStreamId } from '../../agent.events.js';

@Requires(AgentResolver, (agents, { agentId }: ChangeAgentPrompt) => agents.manage(agentId))
export class ChangeAgentPrompt extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly systemPrompt: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ChangeAgentPrompt)
export class ChangeAgentPromptHandler implements ICommandHandler<ChangeAgentPrompt> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ agentId, systemPrompt, context }: ChangeAgentPrompt): Promise<WriteResult> {
    const result = await this.aggregates.decide(
      agentStreamId(agentId),
      agentDecider,
      { type: 'ChangeAgentSystemPrompt', agentId, systemPrompt },
      context,
    );
    return { id: agentId, position: result.position };
  }
}
