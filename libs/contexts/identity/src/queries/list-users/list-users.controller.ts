// GET /users (our extension, admins).
import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, listOf, ListQuery, ZodQuery } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { ListUsers } from './list-users.query.js';
import { UserDto } from './user.dto.js';

@Controller('api/v1/core')
export class ListUsersController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Users',
    summary: 'List users (admin)',
    query: ListQuery,
    response: { status: 200, schema: listOf(UserDto), description: 'A page of users' },
    errors: [400, 403],
  })
  @Get('users')
  users(@Query(new ZodQuery(ListQuery)) query: z.output<typeof ListQuery>, @CurrentCaller() caller: Caller) {
    return this.queries.execute(new ListUsers(query, caller));
  }
}
