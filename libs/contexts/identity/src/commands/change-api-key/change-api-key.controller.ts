// PATCH /api-keys/{apiKeyId} (our extension, admins).
import { Body, Controller, Param, Patch } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { principalOf, commandContext, CurrentCaller, type Caller } from '#access';
import { ApiRoute, ZodBody } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { toAccess, toLimit } from '../../api-key.schemas.js';
import { API_KEYS_READ_MODEL } from '../../api-keys.read-model.js';
import { ApiKeyDto } from '../../queries/get-api-key/api-key.dto.js';
import { GetApiKey } from '../../queries/get-api-key/get-api-key.query.js';
import { USERS_READ_MODEL } from '../../users.read-model.js';
import { ChangeApiKey } from './change-api-key.command.js';
import { ChangeApiKeyBody } from './change-api-key.schema.js';

@Controller('api/v1/core')
export class ChangeApiKeyController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'API keys',
    summary: 'Change name, Agent grants or usage limit (admin)',
    body: ChangeApiKeyBody,
    response: { status: 200, schema: ApiKeyDto, description: 'The key' },
    errors: [400, 403, 404],
  })
  @Patch('api-keys/:apiKeyId')
  async change(
    @Param('apiKeyId') apiKeyId: string,
    @Body(new ZodBody(ChangeApiKeyBody)) body: z.output<typeof ChangeApiKeyBody>,
    @CurrentCaller() caller: Caller,
  ) {
    await this.sender.send(
      new ChangeApiKey(
        {
          apiKeyId,
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.agents !== undefined ? { agentAccess: toAccess(body.agents) } : {}),
          ...(body.usageLimit !== undefined ? { usageLimit: toLimit(body.usageLimit) } : {}),
        },
        commandContext(caller),
        principalOf(caller),
      ),
      [API_KEYS_READ_MODEL, USERS_READ_MODEL],
    );
    return this.queries.execute(new GetApiKey(apiKeyId, caller));
  }
}
