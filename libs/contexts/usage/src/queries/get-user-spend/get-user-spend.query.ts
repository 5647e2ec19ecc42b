// A user's spend limit, what their week has used, its overage and when it resets: one's own (`me`); any user's and
// everyone's for admins.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { NotFoundError } from '#kernel';
import { USERS, type UserView } from '#identity';
import { ask, Requires, type Caller } from '#access';
import { findAll, READ_STORE, type ReadStore } from '#read-store';
import { UserSpendLimiter } from '../../user-spend-limiter.js';
import type { UserSpendDto, UserSpendListDto } from './get-user-spend.schema.js';

@Requires(({ userId }: GetUserSpend) =>
  userId === null
    ? ask('usage.read.own', null, 'this principal has no usage of its own')
    : ask('usage.read.all', null, "only admins read a user's limit by id (yours: /cost-control/users/me)", {
        code: 'admin_required',
      }),
)
export class GetUserSpend extends Query<z.output<typeof UserSpendDto>> {
  constructor(
    /** null: the caller's own (`me`, `usage.read.own`); a user's id: admins (`usage.read.all`). */
    readonly userId: string | null,
    readonly caller: Caller,
  ) {
    super();
  }
}

/** Every user's (admins). */
@Requires(() => ask('usage.read.all', null, "only admins see every user's limit", { code: 'admin_required' }))
export class ListUserSpend extends Query<z.output<typeof UserSpendListDto>> {
  constructor(readonly caller: Caller) {
    super();
  }
}

@QueryHandler(GetUserSpend)
export class GetUserSpendHandler implements IQueryHandler<GetUserSpend> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly spend: UserSpendLimiter,
  ) {}

  async execute({ userId, caller }: GetUserSpend) {
    if (userId === null) return this.spend.status(caller.userId);
    const user = await this.readStore.reader<UserView>(USERS).get(userId);
    if (!user) throw new NotFoundError('user', userId);
    return this.spend.status(userId);
  }
}

@QueryHandler(ListUserSpend)
export class ListUserSpendHandler implements IQueryHandler<ListUserSpend> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly spend: UserSpendLimiter,
  ) {}

  async execute() {
    const users = await findAll<UserView>(this.readStore, USERS, {});
    const data = [];
    for (const user of users) data.push(await this.spend.status(user.id));
    return { data };
  }
}
