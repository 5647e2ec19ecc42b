// The users, oldest first (admins).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { ListQuery } from '#http';
import { READ_STORE, type Page, type ReadStore } from '#read-store';
import { AskedAtRoute, type Caller } from '#access';
import { USERS, type UserView } from '../../users.read-model.js';

@AskedAtRoute('the route row asks user.list (admins)')
export class ListUsers extends Query<Page<UserView>> {
  constructor(
    readonly query: z.output<typeof ListQuery>,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ListUsers)
export class ListUsersHandler implements IQueryHandler<ListUsers> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  execute({ query }: ListUsers): Promise<Page<UserView>> {
    return this.readStore
      .reader<UserView>(USERS)
      .find({}, { sort: { field: 'createdAt' }, limit: query.limit, cursor: query.cursor ?? null });
  }
}
