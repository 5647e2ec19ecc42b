// GET /cost-control/users and /cost-control/users/{userId} (our extension): a user's weekly spend limit, usage in the
// week, overage and resetsAt: `me` for the caller's own; any user's and every user's for admins.
import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { GetUserSpend, ListUserSpend } from './get-user-spend.query.js';
import { UserSpendDto, UserSpendListDto } from './get-user-spend.schema.js';

@Controller('api/v1/core')
export class GetUserSpendController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Usage',
    summary: "Every user's weekly spend limit, usage, overage and reset time (admin)",
    response: { status: 200, schema: UserSpendListDto, description: 'One entry per user' },
    errors: [401, 403],
  })
  @Get('cost-control/users')
  list(@CurrentCaller() caller: Caller) {
    return this.queries.execute(new ListUserSpend(caller));
  }

  @ApiRoute({
    tag: 'Usage',
    summary: "The caller's weekly spend limit, what the week used, its overage and when it resets",
    description: '`resetsAt` is the week’s start (the usageWindowStart plus whole weeks) plus seven days.',
    response: { status: 200, schema: UserSpendDto, description: 'The limit and the current week' },
    errors: [401, 403],
  })
  @Get('cost-control/users/me')
  mine(@CurrentCaller() caller: Caller) {
    return this.queries.execute(new GetUserSpend(null, caller));
  }

  @ApiRoute({
    tag: 'Usage',
    summary: "A user's weekly spend limit, what the week used, its overage and when it resets (admin)",
    response: { status: 200, schema: UserSpendDto, description: 'The limit and the current week' },
    errors: [401, 403, 404],
  })
  @Get('cost-control/users/:userId')
  get(@Param('userId') userId: string, @CurrentCaller() caller: Caller) {
    return this.queries.execute(new GetUserSpend(userId, caller));
  }
}
