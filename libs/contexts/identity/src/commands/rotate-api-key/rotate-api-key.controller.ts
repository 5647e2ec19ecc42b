// POST /api-keys/{apiKeyId}/rotate (admins): any key's replacement, its secret answered once.
import { Controller, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { principalOf, commandContext, CurrentCaller, type Caller } from '#access';
import { ApiRoute } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { API_KEYS_READ_MODEL } from '../../api-keys.read-model.js';
import { IssuedApiKeyDto } from '../../queries/get-api-key/api-key.dto.js';
import { GetApiKey } from '../../queries/get-api-key/get-api-key.query.js';
import { IdempotencyInterceptor } from '../../http/idempotency.interceptor.js';
import { RotateApiKey } from './rotate-api-key.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core')
export class RotateApiKeyController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'API keys',
    summary: 'Rotate an API key (admin)',
    idempotent: true,
    description:
      'A new key with the same name, owner, grants, admin rights and usage limit (its secret in this response ' +
      'only); the old one is revoked. ADMIN_API_KEY is rotated by changing the variable (409 bootstrap_key).',
    response: { status: 201, schema: IssuedApiKeyDto, description: 'The new key with its secret' },
    errors: [403, 404, 409],
  })
  @HttpCode(201)
  @Post('api-keys/:apiKeyId/rotate')
  async rotate(@Param('apiKeyId') apiKeyId: string, @CurrentCaller() caller: Caller) {
    const issued = await this.sender.send(
      new RotateApiKey(apiKeyId, commandContext(caller), principalOf(caller)),
      [API_KEYS_READ_MODEL],
    );
    return { ...(await this.queries.execute(new GetApiKey(issued.id, caller))), key: issued.key };
  }
}
