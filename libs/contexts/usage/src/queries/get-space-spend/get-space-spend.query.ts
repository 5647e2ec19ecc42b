// A Space's spend limit, what its week has used, its overage and when it resets: for whoever sees the Space (the
// policy's `space.read`, asked through the SpaceResolver: 404 otherwise).
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { Requires, type PrincipalOrCaller } from '#access';
import { SpaceResolver } from '#spaces';
import { UserSpendLimiter } from '../../user-spend-limiter.js';
import type { SpaceSpendDto } from './get-space-spend.schema.js';

@Requires(SpaceResolver, (spaces, { spaceId, caller }: GetSpaceSpend) => spaces.see(spaceId, caller))
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
  constructor(private readonly spend: UserSpendLimiter) {}

  async execute({ spaceId }: GetSpaceSpend) {
    return { spaceId, ...(await this.spend.statusOf({ scope: 'space', id: spaceId })) };
  }
}
