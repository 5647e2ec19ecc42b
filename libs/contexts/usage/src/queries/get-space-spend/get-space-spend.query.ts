// A Space's spend limit, what its week has used, its overage and when it resets: for whoever sees the Space (the
// policy's `space.read`, through the Spaces' loader: 404 otherwise).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { PrincipalOrCaller } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { SpaceGrants, visibleSpace } from '#spaces';
import { UserSpendLimiter } from '../../user-spend-limiter.js';
import type { SpaceSpendDto } from './get-space-spend.schema.js';

export class GetSpaceSpend extends Query<z.output<typeof SpaceSpendDto>> {
  constructor(
    readonly spaceId: string,
    readonly caller: PrincipalOrCaller,
  ) {
    super();
  }
}

@QueryHandler(GetSpaceSpend)
export class GetSpaceSpendHandler implements IQueryHandler<GetSpaceSpend> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly grants: SpaceGrants,
    private readonly spend: UserSpendLimiter,
  ) {}

  async execute({ spaceId, caller }: GetSpaceSpend) {
    await visibleSpace(this.readStore, this.grants, spaceId, caller);
    return { spaceId, ...(await this.spend.statusOf({ scope: 'space', id: spaceId })) };
  }
}
