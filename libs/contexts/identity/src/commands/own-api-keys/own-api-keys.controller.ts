// Developer Settings (a signed-in user, or a key acting for its user): GET/POST /me/api-keys,
// DELETE /me/api-keys/{apiKeyId}, POST /me/api-keys/{apiKeyId}/rotate.
import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { z } from 'zod';
import { principalOf, commandContext, CurrentCaller, type Caller } from '#access';
import { ApiRoute, ZodBody } from '#http';
import { QueryBus } from '@nestjs/cqrs';
import { ReadYourWritesBus } from '#eventsourcing';
import { toAccess, toLimit } from '../../api-key.schemas.js';
import { API_KEYS_READ_MODEL } from '../../api-keys.read-model.js';
import { ApiKeyDto, IssuedApiKeyDto } from '../../queries/get-api-key/api-key.dto.js';
import { GetOwnApiKey, ListOwnApiKeys } from '../../queries/list-own-api-keys/list-own-api-keys.query.js';
import { CreateOwnApiKey, RevokeOwnApiKey, RotateOwnApiKey } from './own-api-keys.command.js';
import { CreateOwnApiKeyBody } from './own-api-keys.schema.js';
import { IdempotencyInterceptor } from '../../http/idempotency.interceptor.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core')
export class OwnApiKeysController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Developer Settings',
    summary: 'List my API keys',
    response: {
      status: 200,
      schema: z.object({ data: z.array(ApiKeyDto) }),
      description: "The caller's keys",
    },
    errors: [401, 403],
  })
  @Get('me/api-keys')
  list(@CurrentCaller() caller: Caller) {
    return this.queries.execute(new ListOwnApiKeys(caller));
  }

  @ApiRoute({
    tag: 'Developer Settings',
    summary: 'Create an API key of my own',
    idempotent: true,
    description:
      "The key acts as the caller's user, is granted only Agents the caller may use (asking for more is 403 " +
      '`agent_access_denied`), is never an admin key and carries a usage limit; made by a key, within that ' +
      "key's own (403 `usage_limit_above_own`). The secret is in this response only.",
    body: CreateOwnApiKeyBody,
    response: { status: 201, schema: IssuedApiKeyDto, description: 'The key with its secret' },
    errors: [400, 401, 403, 422],
  })
  @Post('me/api-keys')
  async create(
    @Body(new ZodBody(CreateOwnApiKeyBody)) body: z.output<typeof CreateOwnApiKeyBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const issued = await this.sender.send(
      new CreateOwnApiKey(
        { name: body.name, agentAccess: toAccess(body.agents), usageLimit: toLimit(body.usageLimit)! },
        commandContext(caller),
        principalOf(caller),
      ),
      [API_KEYS_READ_MODEL],
    );
    return { ...(await this.own(issued.id)), key: issued.key };
  }

  @ApiRoute({
    tag: 'Developer Settings',
    summary: 'Revoke an API key of my own',
    response: { status: 200, schema: ApiKeyDto, description: 'The revoked key' },
    errors: [401, 403, 404],
  })
  @Delete('me/api-keys/:apiKeyId')
  async revoke(@Param('apiKeyId') apiKeyId: string, @CurrentCaller() caller: Caller) {
    await this.sender.send(new RevokeOwnApiKey(apiKeyId, commandContext(caller), principalOf(caller)), [
      API_KEYS_READ_MODEL,
    ]);
    return this.own(apiKeyId);
  }

  @ApiRoute({
    tag: 'Developer Settings',
    summary: 'Rotate an API key of my own',
    idempotent: true,
    description:
      'A new key with the same name, grants and usage limit (its secret in this response only); the old one is revoked.',
    response: { status: 201, schema: IssuedApiKeyDto, description: 'The new key with its secret' },
    errors: [401, 403, 404],
  })
  @HttpCode(201)
  @Post('me/api-keys/:apiKeyId/rotate')
  async rotate(@Param('apiKeyId') apiKeyId: string, @CurrentCaller() caller: Caller) {
    const issued = await this.sender.send(
      new RotateOwnApiKey(apiKeyId, commandContext(caller), principalOf(caller)),
      [API_KEYS_READ_MODEL],
    );
    return { ...(await this.own(issued.id)), key: issued.key };
  }

  private own(apiKeyId: string) {
    return this.queries.execute(new GetOwnApiKey(apiKeyId));
  }
}
