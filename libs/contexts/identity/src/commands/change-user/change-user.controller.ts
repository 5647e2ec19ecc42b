// PATCH /users/{userId} (admins): change another user's instance role.
import { Body, Controller, Param, Patch } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { principalOf, changeSourceOf, commandContext, CurrentCaller, type Caller } from '#access';
import { ApiRoute, ZodBody } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { GetUserById } from '../../queries/get-current-user/get-current-user.query.js';
import { UserDto } from '../../queries/list-users/user.dto.js';
import { USERS_READ_MODEL } from '../../users.read-model.js';
import { ChangeUserRole } from './change-user.command.js';
import { ChangeUserBody } from './change-user.schema.js';

@Controller('api/v1/core')
export class ChangeUserController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Users',
    summary: "Change a user's role (admin)",
    description:
      'Nobody changes their own role (403 own_role_unchangeable); the last active administrator cannot be ' +
      'demoted (409 last_admin).',
    body: ChangeUserBody,
    response: { status: 200, schema: UserDto, description: 'The user' },
    errors: [400, 403, 404, 409],
  })
  @Patch('users/:userId')
  async change(
    @Param('userId') userId: string,
    @Body(new ZodBody(ChangeUserBody)) body: z.output<typeof ChangeUserBody>,
    @CurrentCaller() caller: Caller,
  ) {
    await this.sender.send(
      new ChangeUserRole(
        userId,
        body.role,
        changeSourceOf(caller),
        commandContext(caller),
        principalOf(caller),
      ),
      [USERS_READ_MODEL],
    );
    return this.queries.execute(new GetUserById(userId));
  }
}
