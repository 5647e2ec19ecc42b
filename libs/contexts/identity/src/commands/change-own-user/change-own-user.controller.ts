// PATCH /users/me: one's own settings (language). A `role` here is refused (400): nobody changes their own role.
import { Body, Controller, Patch } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { principalOf, changeSourceOf, commandContext, CurrentCaller, type Caller } from '#access';
import { ApiRoute, ZodBody } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { GetCurrentUser } from '../../queries/get-current-user/get-current-user.query.js';
import { UserDto } from '../../queries/list-users/user.dto.js';
import { USERS_READ_MODEL } from '../../users.read-model.js';
import { ChangeOwnUser } from './change-own-user.command.js';

const ChangeOwnUserBody = z.strictObject({ language: z.enum(['de', 'en']) });

@Controller('api/v1/core')
export class ChangeOwnUserController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Users',
    summary: 'Change my settings (language)',
    body: ChangeOwnUserBody,
    response: { status: 200, schema: UserDto, description: 'The user' },
    errors: [400, 401, 403],
  })
  @Patch('users/me')
  async change(
    @Body(new ZodBody(ChangeOwnUserBody)) body: z.output<typeof ChangeOwnUserBody>,
    @CurrentCaller() caller: Caller,
  ) {
    await this.sender.send(
      new ChangeOwnUser(body.language, changeSourceOf(caller), commandContext(caller), principalOf(caller)),
      [USERS_READ_MODEL],
    );
    return this.queries.execute(new GetCurrentUser(caller));
  }
}
