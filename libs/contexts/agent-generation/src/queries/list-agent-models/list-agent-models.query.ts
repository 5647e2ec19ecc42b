// The chat models an Agent may use, and its default (its own model when that is a configured chat model).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { agentById, AgentResolver } from '#agents';
import { Requires, type Caller } from '#access';
import { ModelRegistry, type ModelInfo } from '#model-providers';
import { READ_STORE, type ReadStore } from '#read-store';

@Requires(AgentResolver, (agents, { agentId }: ListAgentModels) => agents.use(agentId))
export class ListAgentModels extends Query<{
  defaultModel: string;
  availableModels: string[];
  models: ModelInfo[];
}> {
  constructor(
    readonly agentId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ListAgentModels)
export class ListAgentModelsHandler implements IQueryHandler<ListAgentModels> {
  constructor(
    private readonly models: ModelRegistry,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ agentId }: ListAgentModels) {
    const agent = await agentById(this.readStore, agentId);
    const models = this.models.infos(['chat']);
    const agentModel = this.models.get(agent.model);
    return {
      defaultModel: agentModel?.kind === 'chat' ? agentModel.key : this.models.defaultModel('chat')!.key,
      availableModels: models.map((model) => model.key),
      models,
    };
  }
}
