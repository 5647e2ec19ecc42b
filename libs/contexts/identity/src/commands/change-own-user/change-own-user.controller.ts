// PATCH /users/me: one's own settings (language, name); POST /users/me/password: one's own password, with the current
// one. A `role` here is refused (400): nobody changes their own role.
import { Body, Controller, HttpCode, Patch, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { principalOf, changeSourceOf, commandContext, CurrentCaller, type Caller } from '#access';
import { ApiRoute, ZodBody } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { GetCurrentUser } from '../../queries/get-current-user/get-current-user.query.js';
import { UserDto } from '../../queries/list-users/user.dto.js';
import { USERS_READ_MODEL } from '../../users.read-model.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../password.js';
import { ChangeOwnPassword, ChangeOwnUser } from './change-own-user.command.js';
import { IdempotencyInterceptor } from '../../http/idempotency.interceptor.js';

const ChangeOwnUserBody = z
  .strictObject({
    language: z.enum(['de', 'en']).optional(),
    name: z.string().trim().min(1).max(120).optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one of language, name');

const ChangeOwnPasswordBody = z.strictObject({
  currentPassword: z.string().min(1).max(MAX_PASSWORD_LENGTH),
  password: z.string().min(MIN_PASSWORD_LENGTH).max(MAX_PASSWORD_LENGTH),
});

@Controller('api/v1/core')
export class ChangeOwnUserController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Users',
    summary: 'Change my settings (language, name)',
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
      new ChangeOwnUser(body, changeSourceOf(caller), commandContext(caller), principalOf(caller)),
      [USERS_READ_MODEL],
    );
    return this.queries.execute(new GetCurrentUser(caller));
  }

  @ApiRoute({
    tag: 'Users',
    summary: 'Change my password',
    idempotent: true,
    description:
      'The current password is required (400 `wrong_password` when it is not right); sessions stay. A retry with ' +
      'its Idempotency-Key is answered as the first time (the current password has changed since).',
    body: ChangeOwnPasswordBody,
    response: { status: 204, description: 'Changed' },
    errors: [400, 401, 403],
  })
  // A retry would otherwise be refused: the password it proves is no longer the current one.
  @UseInterceptors(IdempotencyInterceptor)
  @HttpCode(204)
  @Post('users/me/password')
  async changePassword(
    @Body(new ZodBody(ChangeOwnPasswordBody)) body: z.output<typeof ChangeOwnPasswordBody>,
    @CurrentCaller() caller: Caller,
  ) {
    await this.sender.send(
      new ChangeOwnPassword(body, changeSourceOf(caller), commandContext(caller), principalOf(caller)),
      [USERS_READ_MODEL],
    );
  }
}
