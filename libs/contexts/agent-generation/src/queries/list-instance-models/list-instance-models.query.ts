// Every model the instance has configured (chat, embedding, transcription, speech), with its provider, security tier,
// location and price: what an admin's operations page lists. Admins only (the route's row asks
// `instance.settings.manage`); an Agent's users read its chat models through GET /llm/{agentId}/models instead.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { AskedAtRoute } from '#access';
import { ModelRegistry, type ModelInfo } from '#model-providers';

@AskedAtRoute("the route's row asks instance.settings.manage (admins)")
export class ListInstanceModels extends Query<{ data: ModelInfo[] }> {}

@QueryHandler(ListInstanceModels)
export class ListInstanceModelsHandler implements IQueryHandler<ListInstanceModels> {
  constructor(private readonly models: ModelRegistry) {}

  execute(): Promise<{ data: ModelInfo[] }> {
    return Promise.resolve({ data: this.models.infos() });
  }
}
