// DELETE /api-keys/{apiKeyId} (our extension, admins): the key is revoked, not forgotten.
import { Controller, Delete, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { principalOf, commandContext, CurrentCaller, type Caller } from '#access';
import { ApiRoute } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { API_KEYS_READ_MODEL } from '../../api-keys.read-model.js';
import { ApiKeyDto } from '../../queries/get-api-key/api-key.dto.js';
import { GetApiKey } from '../../queries/get-api-key/get-api-key.query.js';
import { USERS_READ_MODEL } from '../../users.read-model.js';
import { RevokeApiKey } from './revoke-api-key.command.js';

@Controller('api/v1/core')
export class RevokeApiKeyController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'API keys',
    summary: 'Revoke an API key (admin)',
    response: { status: 200, schema: ApiKeyDto, description: 'The revoked key' },
    errors: [403, 404],
  })
  @Delete('api-keys/:apiKeyId')
  async revoke(@Param('apiKeyId') apiKeyId: string, @CurrentCaller() caller: Caller) {
    await this.sender.send(new RevokeApiKey(apiKeyId, commandContext(caller), principalOf(caller)), [
      API_KEYS_READ_MODEL,
      USERS_READ_MODEL,
    ]);
    return this.queries.execute(new GetApiKey(apiKeyId, caller));
  }
}
