// The user who owns the calling key.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { AskedAtRoute, type Caller } from '#access';
import { USERS, type UserView } from '../../users.read-model.js';

@AskedAtRoute("the route row asks user.self: the caller's own user")
export class GetCurrentUser extends Query<UserView> {
  constructor(readonly caller: Caller) {
    super();
  }
}

@QueryHandler(GetCurrentUser)
export class GetCurrentUserHandler implements IQueryHandler<GetCurrentUser> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ caller }: GetCurrentUser): Promise<UserView> {
    const user = await this.readStore.reader<UserView>(USERS).get(caller.userId);
    if (!user) throw new NotFoundError('User', caller.userId);
    return user;
  }
}

/** A user by id, for a route that has just made it (no caller: the public invitation acceptance). */
@AskedAtRoute(
  "it answers the user a route has just made or changed: an accepted invitation, a sign-in (public), an admin's change (user.manage)",
)
export class GetUserById extends Query<UserView> {
  constructor(readonly userId: string) {
    super();
  }
}

@QueryHandler(GetUserById)
export class GetUserByIdHandler implements IQueryHandler<GetUserById> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ userId }: GetUserById): Promise<UserView> {
    const user = await this.readStore.reader<UserView>(USERS).get(userId);
    if (!user) throw new NotFoundError('User', userId);
    return user;
  }
}
