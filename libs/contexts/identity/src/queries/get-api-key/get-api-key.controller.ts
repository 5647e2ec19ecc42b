// GET /api-keys/{apiKeyId} (our extension, admins).
import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { ApiKeyDto } from './api-key.dto.js';
import { GetApiKey } from './get-api-key.query.js';

@Controller('api/v1/core')
export class GetApiKeyController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'API keys',
    summary: 'Get an API key (admin)',
    response: { status: 200, schema: ApiKeyDto, description: 'The key' },
    errors: [403, 404],
  })
  @Get('api-keys/:apiKeyId')
  get(@Param('apiKeyId') apiKeyId: string, @CurrentCaller() caller: Caller) {
    return this.queries.execute(new GetApiKey(apiKeyId, caller));
  }
}
