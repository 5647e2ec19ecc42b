// GET /users/me (our extension).
import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { UserDto } from '../list-users/user.dto.js';
import { GetCurrentUser } from './get-current-user.query.js';

@Controller('api/v1/core')
export class GetCurrentUserController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Users',
    summary: "The caller's user (an API key's owner, or the signed-in person)",
    response: { status: 200, schema: UserDto, description: 'The user' },
  })
  @Get('users/me')
  me(@CurrentCaller() caller: Caller) {
    return this.queries.execute(new GetCurrentUser(caller));
  }
}
