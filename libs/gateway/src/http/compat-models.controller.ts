// GET /api/compat/v1/models: the chat and embedding models in the OpenAI list shape (the reranker is not listed),
// with each model's description alongside for clients that want tiers and pricing. Takes x-api-key or Bearer.
import { Controller, Get } from '@nestjs/common';
import { ModelRegistry } from '../../../models/src/model-registry.js';
import { AcceptsBearer } from '../../../identity/src/http/api-key.guard.js';

@AcceptsBearer()
@Controller('api/compat/v1')
export class CompatModelsController {
  constructor(private readonly models: ModelRegistry) {}

  @Get('models')
  list() {
    return {
      object: 'list',
      data: this.models.infos(['chat', 'embedding']).map((info) => ({
        id: info.key,
        object: 'model',
        created: 0,
        owned_by: info.provider,
        kind: info.kind,
        display_name: info.displayName,
        security_tier: info.securityTier,
        region: info.region,
        tags: info.tags,
        pricing: info.pricing,
      })),
    };
  }
}
