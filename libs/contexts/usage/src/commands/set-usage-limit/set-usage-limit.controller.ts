// POST, PUT and DELETE /cost-control/{apiKeyId} (our extension, admins): the same ApiKeyUsageLimitChanged event as
// PATCH /api-keys/{id} with `usageLimit`.
import { Body, Controller, Delete, Param, Post, Put, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor, API_KEYS_READ_MODEL, toLimit, UsageLimitBody } from '#identity';
import { commandContext, principalOf, CurrentCaller, type Caller, type UsageLimit } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { CostControlDto } from '../../queries/get-cost-control/get-cost-control.schema.js';
import { GetCostControl } from '../../queries/get-cost-control/get-cost-control.query.js';
import { SetUsageLimit } from './set-usage-limit.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core')
export class SetUsageLimitController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Usage',
    summary: 'Set a usage limit on an API key that has none (admin)',
    idempotent: true,
    body: UsageLimitBody,
    response: { status: 201, schema: CostControlDto, description: 'The key with its new limit' },
    errors: [
      400,
      403,
      404,
      { status: 409, description: '`usage_limit_exists`: the key has a limit (PUT replaces it)' },
    ],
  })
  @Post('cost-control/:apiKeyId')
  createLimit(
    @Param('apiKeyId') apiKeyId: string,
    @Body(new ZodBody(UsageLimitBody)) body: z.output<typeof UsageLimitBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.set(apiKeyId, toLimit(body), true, caller);
  }

  @ApiRoute({
    tag: 'Usage',
    summary: "Set or replace an API key's usage limit (admin)",
    description: 'Takes effect at once, for calls already counted in the current window too.',
    body: UsageLimitBody,
    response: { status: 200, schema: CostControlDto, description: 'The key with its limit' },
    errors: [400, 403, 404],
  })
  @Put('cost-control/:apiKeyId')
  replaceLimit(
    @Param('apiKeyId') apiKeyId: string,
    @Body(new ZodBody(UsageLimitBody)) body: z.output<typeof UsageLimitBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.set(apiKeyId, toLimit(body), false, caller);
  }

  @ApiRoute({
    tag: 'Usage',
    summary: "Remove an API key's usage limit (admin)",
    response: { status: 200, schema: CostControlDto, description: 'The key, now unlimited' },
    errors: [403, 404],
  })
  @Delete('cost-control/:apiKeyId')
  removeLimit(@Param('apiKeyId') apiKeyId: string, @CurrentCaller() caller: Caller) {
    return this.set(apiKeyId, null, false, caller);
  }

  private async set(apiKeyId: string, usageLimit: UsageLimit | null, onlyIfNone: boolean, caller: Caller) {
    await this.writes.send(
      new SetUsageLimit(apiKeyId, usageLimit, onlyIfNone, commandContext(caller), principalOf(caller)),
      [API_KEYS_READ_MODEL],
    );
    return this.queries.execute(new GetCostControl(apiKeyId, caller, true));
  }
}
