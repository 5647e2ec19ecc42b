// Creating an Agent: by a caller (POST /agents) into a Space it may change, or for the system (a user's personal
// Agent, by the personal-agent process) with the id it derives.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ForbiddenError } from '#kernel';
import { newEntityId, type CommandContext } from '#eventsourcing';
import { authorize, type Caller } from '#identity';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { agentDecider, type AgentCommand } from '../../agent.decider.js';
import { agentStreamId } from '../../agent.events.js';
import { AgentRules } from '../../agent-rules.js';

export class CreateAgent extends Command<WriteResult> {
  constructor(
    readonly fields: Omit<Extract<AgentCommand, { type: 'CreateAgent' }>, 'type' | 'agentId' | 'settings'> & {
      /** Without a model, the instance's default chat model. */
      readonly settings: Omit<Extract<AgentCommand, { type: 'CreateAgent' }>['settings'], 'model'> & {
        readonly model?: string;
      };
    },
    readonly context: CommandContext,
    /** The caller whose grants decide; null when the system acts (the id is then given). */
    readonly caller: Caller | null,
    readonly agentId?: string,
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

  async execute({ fields, context, caller, agentId: given }: CreateAgent): Promise<WriteResult> {
    if (caller) {
      if (!authorize(caller, 'agent.create', null).allow)
        throw new ForbiddenError(
          'agent_creation_denied',
          'only keys with access to all Agents can create Agents',
        );
      if (fields.spaceId) await this.rules.requireSpace(fields.spaceId, caller);
      this.rules.requireChatModel(fields.settings.model);
    }
    const agentId = given ?? newEntityId(context, 'agt');
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
