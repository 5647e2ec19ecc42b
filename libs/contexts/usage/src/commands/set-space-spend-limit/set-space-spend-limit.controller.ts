// PUT and DELETE /cost-control/spaces/{spaceId} (our extension, the Space's owners and admins): a Space's weekly
// spend limit. Every change is a SpaceSpendLimitChanged event and applies from that moment: at once in this process
// and where the spend-limits projection runs (the write waits for it), within a second in the others (SpendLimits).
import { Body, Controller, Delete, Param, Put } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { commandContext, principalOf, CurrentCaller, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import type { SpaceSpendLimit } from '../../space-spend.js';
import { SPEND_LIMITS_READ_MODEL } from '../../spend-limits.read-model.js';
import { UserSpendLimitBody } from '../../queries/get-user-spend/get-user-spend.schema.js';
import { GetSpaceSpend } from '../../queries/get-space-spend/get-space-spend.query.js';
import { SpaceSpendDto } from '../../queries/get-space-spend/get-space-spend.schema.js';
import { SetSpaceSpendLimit } from './set-space-spend-limit.command.js';

@Controller('api/v1/core')
export class SetSpaceSpendLimitController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Usage',
    summary: "Set or replace a Space's weekly spend limit (its owners, admins)",
    description:
      "Every call made for the Space (its Agents' conversation turns and tool steps, generate endpoints, memory " +
      'extraction, compaction, the embeddings of its Knowledge), streamed or not, is admitted only while spent + ' +
      'reserved + the call’s estimate ≤ the limit (`block`: 429 `usage_limit_exceeded` with Retry-After), or goes ' +
      "through and counts as overage (`allow`); the key's and the user's limits apply too. A change applies from " +
      'that moment. A limit an admin set is changed only by an admin (403 `spend_limit_set_by_admin`).',
    body: UserSpendLimitBody,
    response: {
      status: 200,
      schema: SpaceSpendDto,
      description: 'The Space with its limit and current week',
    },
    errors: [400, 403, 404],
  })
  @Put('cost-control/spaces/:spaceId')
  setLimit(
    @Param('spaceId') spaceId: string,
    @Body(new ZodBody(UserSpendLimitBody)) body: z.output<typeof UserSpendLimitBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.set(
      spaceId,
      { tokens: body.tokens ?? null, costUsd: body.costUsd ?? null, overage: body.overage },
      caller,
    );
  }

  @ApiRoute({
    tag: 'Usage',
    summary: "Remove a Space's weekly spend limit (its owners, admins)",
    description: 'A limit an admin set is removed only by an admin (403 `spend_limit_set_by_admin`).',
    response: { status: 200, schema: SpaceSpendDto, description: 'The Space, now unlimited' },
    errors: [403, 404],
  })
  @Delete('cost-control/spaces/:spaceId')
  removeLimit(@Param('spaceId') spaceId: string, @CurrentCaller() caller: Caller) {
    return this.set(spaceId, null, caller);
  }

  private async set(spaceId: string, limit: SpaceSpendLimit | null, caller: Caller) {
    await this.writes.send(
      new SetSpaceSpendLimit(spaceId, limit, commandContext(caller), principalOf(caller)),
      [SPEND_LIMITS_READ_MODEL],
    );
    return this.queries.execute(new GetSpaceSpend(spaceId, caller));
  }
}
