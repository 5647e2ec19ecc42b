// Creating an Agent (POST /agents): by a principal the policy lets create Agents, into a Space it may change, with a
// configured chat model (the instance's default when none is named). A user's personal Agent is made by the platform
// through CreatePersonalAgent instead.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, newEntityId, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { AgentResolver } from '../../agent-resolver.js';
import { agentDecider, type AgentCommand } from '../../agent.decider.js';
import { agentStreamId } from '../../agent.events.js';
import { AgentRules } from '../../agent-rules.js';

@Requires(AgentResolver, (agents, { fields, principal }: CreateAgent) =>
  agents.create(fields.spaceId ?? undefined, principal),
)
export class CreateAgent extends Command<WriteResult> {
  constructor(
    readonly fields: Omit<Extract<AgentCommand, { type: 'CreateAgent' }>, 'type' | 'agentId' | 'settings'> & {
      /** Without a model, the instance's default chat model. */
      readonly settings: Omit<Extract<AgentCommand, { type: 'CreateAgent' }>['settings'], 'model'> & {
        readonly model?: string;
      };
    },
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(CreateAgent)
export class CreateAgentHandler implements ICommandHandler<CreateAgent> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly rules: AgentRules,
  ) {}

  async execute({ fields, context }: CreateAgent): Promise<WriteResult> {
    this.rules.requireChatModel(fields.settings.model);
    const agentId = newEntityId(context, 'agt');
    const settings = { ...fields.settings, model: fields.settings.model ?? this.rules.defaultChatModel() };
    const result = await this.aggregates.decide(
      agentStreamId(agentId),
      agentDecider,
      { type: 'CreateAgent', agentId, ...fields, settings },
      context,
    );
    return { id: agentId, position: result.position };
  }
}
