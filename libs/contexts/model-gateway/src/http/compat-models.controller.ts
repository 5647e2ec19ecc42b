// GET /api/compat/v1/models: the chat and embedding models in the OpenAI list shape (the reranker is not listed),
// with each model's description alongside for clients that want tiers and pricing. Takes x-api-key or Bearer.
import { Controller, Get, Param } from '@nestjs/common';
import type { ModelInfo } from '#model-providers';
import { ModelNotFoundError } from '../model-gateway.js';
import { ModelRegistry } from '#model-providers';
import { AcceptsBearer } from '#access';
import { ApiRoute } from '#http';
import { Models, ERRORS } from './compat.responses.js';

const LISTED = ['chat', 'embedding'] as const;

const toModelObject = (info: ModelInfo) => ({
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
});

@AcceptsBearer()
@Controller('api/compat/v1')
export class CompatModelsController {
  constructor(private readonly models: ModelRegistry) {}

  @ApiRoute({
    tag: 'Compatible API',
    bearer: true,
    summary: 'List the chat and embedding models (the reranker is not listed)',
    response: {
      status: 200,
      schema: Models,
      description: 'OpenAI list shape, with tier, region and pricing',
    },
  })
  @Get('models')
  list() {
    return { object: 'list', data: this.models.infos(LISTED).map(toModelObject) };
  }

  /** One listed model (`models.retrieve` in the SDKs); the reranker and other kinds are not found here. */
  @ApiRoute({
    tag: 'Compatible API',
    bearer: true,
    summary: 'One listed model (models.retrieve)',
    response: { status: 200, schema: Models.shape.data.element, description: 'The model object' },
    errors: [ERRORS[404]],
  })
  @Get('models/:model')
  get(@Param('model') key: string) {
    const info = this.models.infos(LISTED).find((model) => model.key === key);
    if (!info) throw new ModelNotFoundError(`model '${key}' is not a listed model of this instance`);
    return toModelObject(info);
  }
}
