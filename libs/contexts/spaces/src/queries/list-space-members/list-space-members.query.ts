// The members of a Space, oldest first: to whoever has a role in it (and admins). A Space from before members lists
// its creator as owner until a membership is recorded.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { ListQuery } from '#http';
import { USERS, type UserView } from '#identity';
import { Requires, type Principal } from '#access';
import { READ_STORE, type Page, type ReadStore } from '#read-store';
import { creatorOf, spaceById } from '../../space-membership.js';
import { SpaceResolver } from '../../space-resolver.js';
import { SPACE_MEMBERS, type SpaceMemberView } from '../../spaces.read-model.js';

/** A membership with the member's name (every member sees who the others are; e-mails only in the picker). */
export type NamedSpaceMember = SpaceMemberView & { readonly name: string | null };

@Requires(SpaceResolver, (spaces, { spaceId }: ListSpaceMembers) => spaces.members(spaceId))
export class ListSpaceMembers extends Query<Page<NamedSpaceMember>> {
  constructor(
    readonly spaceId: string,
    readonly query: z.output<typeof ListQuery>,
    readonly principal: Principal,
    /** Only this user's membership (what a membership write answers). */
    readonly userId?: string,
  ) {
    super();
  }
}

@QueryHandler(ListSpaceMembers)
export class ListSpaceMembersHandler implements IQueryHandler<ListSpaceMembers> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ spaceId, query, userId }: ListSpaceMembers): Promise<Page<NamedSpaceMember>> {
    const page = await this.members(spaceId, query, userId);
    const users = this.readStore.reader<UserView>(USERS);
    const data = await Promise.all(
      page.data.map(async (member) => ({
        ...member,
        name: (await users.get(member.userId))?.name ?? null,
      })),
    );
    return { data, nextCursor: page.nextCursor };
  }

  private async members(
    spaceId: string,
    query: z.output<typeof ListQuery>,
    userId: string | undefined,
  ): Promise<Page<SpaceMemberView>> {
    const space = await spaceById(this.readStore, spaceId);
    if (Object.keys(space.members ?? {}).length === 0) {
      const creator = await creatorOf(this.readStore, space);
      const data =
        creator && (userId === undefined || userId === creator)
          ? [
              {
                id: `${spaceId}:${creator}`,
                spaceId,
                userId: creator,
                role: 'owner' as const,
                addedAt: space.createdAt,
                updatedAt: space.createdAt,
              },
            ]
          : [];
      return { data, nextCursor: null };
    }
    const page = await this.readStore
      .reader<SpaceMemberView>(SPACE_MEMBERS)
      .find(userId === undefined ? { spaceId } : { spaceId, userId }, {
        sort: { field: 'addedAt' },
        limit: query.limit,
        cursor: query.cursor ?? null,
      });
    return { ...page, data: page.data.map(({ id: _id, ...member }) => member as SpaceMemberView) };
  }
}
