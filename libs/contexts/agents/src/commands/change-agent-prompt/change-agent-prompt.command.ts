// Changing an Agent's system prompt: by a principal that manages the Agent (a grant alone is not enough).
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import type { Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { manageableAgent } from '../../accessible-agent.js';
import { agentDecider } from '../../agent.decider.js';
import { agentStreamId } from '../../agent.events.js';

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
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ agentId, systemPrompt, context, principal }: ChangeAgentPrompt): Promise<WriteResult> {
    await manageableAgent(this.readStore, agentId, principal);
    const result = await this.aggregates.decide(
      agentStreamId(agentId),
      agentDecider,
      { type: 'ChangeAgentSystemPrompt', agentId, systemPrompt },
      context,
    );
    return { id: agentId, position: result.position };
  }
}
