// The Spaces a caller sees, oldest first: an admin every Space but other users' private personal ones; another
// person the Spaces they have a role in (and, with a key granted a list of Agents, those holding them). An admin's
// page may be short (personal Spaces are filtered after paging); the cursor stays exact.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { ListQuery } from '#http';
import { Filters, permits, type Caller } from '#access';
import { READ_STORE, type Page, type ReadStore } from '#read-store';
import { SpaceGrants, visibleSpaceIds } from '../../space-visibility.js';
import { spaceReply, SPACES, type SpaceView } from '../../spaces.read-model.js';

@Filters('space.read')
export class ListSpaces extends Query<Page<SpaceView>> {
  constructor(
    readonly query: z.output<typeof ListQuery>,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ListSpaces)
export class ListSpacesHandler implements IQueryHandler<ListSpaces> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly grants: SpaceGrants,
  ) {}

  async execute({ query, caller }: ListSpaces): Promise<Page<SpaceView>> {
    const visible = await visibleSpaceIds(this.readStore, this.grants, caller);
    const page = await this.readStore
      .reader<SpaceView>(SPACES)
      .find(visible === null ? {} : { id: { $in: visible } }, {
        sort: { field: 'createdAt' },
        limit: query.limit,
        cursor: query.cursor ?? null,
      });
    // An admin's list holds every Space but other users' private personal ones (the policy's space.read).
    const data = page.data.filter(
      (space) => visible !== null || permits(caller, 'space.read', { space, holdsReachableAgent: false }),
    );
    return { ...page, data: data.map(spaceReply) };
  }
}
