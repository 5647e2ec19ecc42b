// PUT and DELETE /cost-control/users/{userId} (our extension, admins): a user's weekly spend limit. Every change is a
// UserSpendLimitChanged event and applies from that moment: at once in this process and where the spend-limits
// projection runs (the write waits for it), within a second in the others (SpendLimits).
import { Body, Controller, Delete, Param, Put } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { commandContext, principalOf, CurrentCaller, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import type { UserSpendLimit } from '../../user-spend.js';
import { SPEND_LIMITS_READ_MODEL } from '../../spend-limits.read-model.js';
import { GetUserSpend } from '../../queries/get-user-spend/get-user-spend.query.js';
import { UserSpendDto, UserSpendLimitBody } from '../../queries/get-user-spend/get-user-spend.schema.js';
import { SetUserSpendLimit } from './set-user-spend-limit.command.js';

@Controller('api/v1/core')
export class SetUserSpendLimitController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Usage',
    summary: "Set or replace a user's weekly spend limit (admin)",
    description:
      "The user's week starts at their usageWindowStart (not a global Monday). Every model call of the user, " +
      'whichever key or path (chat streamed or not, embeddings, rerank, conversation turns and their tool steps, ' +
      'memory extraction, compaction, generate endpoints, bridge), is admitted only while spent + reserved + the ' +
      'call’s estimate ≤ the limit (`block`: 429 `usage_limit_exceeded` with Retry-After), or goes through and ' +
      'counts as overage (`allow`). A change applies from that moment.',
    body: UserSpendLimitBody,
    response: {
      status: 200,
      schema: UserSpendDto,
      description: 'The user with their limit and current week',
    },
    errors: [400, 403, 404],
  })
  @Put('cost-control/users/:userId')
  setLimit(
    @Param('userId') userId: string,
    @Body(new ZodBody(UserSpendLimitBody)) body: z.output<typeof UserSpendLimitBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.set(
      userId,
      { tokens: body.tokens ?? null, costUsd: body.costUsd ?? null, overage: body.overage },
      caller,
    );
  }

  @ApiRoute({
    tag: 'Usage',
    summary: "Remove a user's weekly spend limit (admin)",
    response: { status: 200, schema: UserSpendDto, description: 'The user, now unlimited' },
    errors: [403, 404],
  })
  @Delete('cost-control/users/:userId')
  removeLimit(@Param('userId') userId: string, @CurrentCaller() caller: Caller) {
    return this.set(userId, null, caller);
  }

  private async set(userId: string, limit: UserSpendLimit | null, caller: Caller) {
    await this.writes.send(
      new SetUserSpendLimit(userId, limit, commandContext(caller), principalOf(caller)),
      [SPEND_LIMITS_READ_MODEL],
    );
    return this.queries.execute(new GetUserSpend(userId, caller));
  }
}
