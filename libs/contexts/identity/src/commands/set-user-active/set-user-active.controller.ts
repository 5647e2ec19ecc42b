// POST /users/{userId}/deactivate and /reactivate (admins).
import { Controller, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { principalOf, changeSourceOf, commandContext, CurrentCaller, type Caller } from '#access';
import { ApiRoute } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { GetUserById } from '../../queries/get-current-user/get-current-user.query.js';
import { UserDto } from '../../queries/list-users/user.dto.js';
import { USERS_READ_MODEL } from '../../users.read-model.js';
import { SetUserActive } from './set-user-active.command.js';
import { IdempotencyInterceptor } from '../../http/idempotency.interceptor.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core')
export class SetUserActiveController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Users',
    summary: 'Deactivate a user (admin)',
    idempotent: true,
    description:
      'Every API key of the person stops working with the next request. Nobody deactivates themselves; the last ' +
      'active administrator stays (409 last_admin).',
    response: { status: 200, schema: UserDto, description: 'The user' },
    errors: [403, 404, 409],
  })
  @HttpCode(200)
  @Post('users/:userId/deactivate')
  deactivate(@Param('userId') userId: string, @CurrentCaller() caller: Caller) {
    return this.set(userId, false, caller);
  }

  @ApiRoute({
    tag: 'Users',
    summary: 'Reactivate a user (admin)',
    idempotent: true,
    response: { status: 200, schema: UserDto, description: 'The user' },
    errors: [403, 404],
  })
  @HttpCode(200)
  @Post('users/:userId/reactivate')
  reactivate(@Param('userId') userId: string, @CurrentCaller() caller: Caller) {
    return this.set(userId, true, caller);
  }

  private async set(userId: string, active: boolean, caller: Caller) {
    await this.sender.send(
      new SetUserActive(userId, active, changeSourceOf(caller), commandContext(caller), principalOf(caller)),
      [USERS_READ_MODEL],
    );
    return this.queries.execute(new GetUserById(userId));
  }
}
