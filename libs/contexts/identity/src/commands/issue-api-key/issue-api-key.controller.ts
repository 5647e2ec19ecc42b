// POST /api-keys (our extension, admins). The key is in this response only.
import { Body, Controller, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { principalOf, commandContext, CurrentCaller, type Caller } from '#access';
import { ApiRoute, ZodBody } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { toAccess, toLimit } from '../../api-key.schemas.js';
import { API_KEYS_READ_MODEL } from '../../api-keys.read-model.js';
import { IdempotencyInterceptor } from '../../http/idempotency.interceptor.js';
import { IssuedApiKeyDto } from '../../queries/get-api-key/api-key.dto.js';
import { GetApiKey } from '../../queries/get-api-key/get-api-key.query.js';
import { USERS_READ_MODEL } from '../../users.read-model.js';
import { IssueApiKey } from './issue-api-key.command.js';
import { IssueApiKeyBody } from './issue-api-key.schema.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core')
export class IssueApiKeyController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'API keys',
    summary: 'Issue an API key (admin)',
    description:
      'The secret `key` is in this response only; it is stored hashed. Each Agent in `agents` must be one the ' +
      'owner may use (a role in its Space): otherwise 400 `grant_unusable` names the Agent and why.',
    body: IssueApiKeyBody,
    idempotent: true,
    response: { status: 201, schema: IssuedApiKeyDto, description: 'The issued key with its secret' },
    errors: [400, 403, 409],
  })
  @Post('api-keys')
  async issue(
    @Body(new ZodBody(IssueApiKeyBody)) body: z.output<typeof IssueApiKeyBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const issued = await this.sender.send(
      new IssueApiKey(
        {
          name: body.name,
          ...(body.owner ? { owner: body.owner } : {}),
          agentAccess: toAccess(body.agents),
          isAdmin: body.isAdmin,
          usageLimit: toLimit(body.usageLimit),
        },
        commandContext(caller),
        principalOf(caller),
      ),
      [API_KEYS_READ_MODEL, USERS_READ_MODEL],
    );
    return { ...(await this.queries.execute(new GetApiKey(issued.id, caller))), key: issued.key };
  }
}
