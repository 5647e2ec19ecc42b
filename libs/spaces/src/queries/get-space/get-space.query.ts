// One Space, if the caller may see it (404 whether or not it exists otherwise).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#identity';
import { READ_STORE, type ReadStore } from '#read-store';
import { SpaceGrants, visibleSpace } from '../../space-visibility.js';
import type { SpaceView } from '../../spaces.read-model.js';

export class GetSpace extends Query<SpaceView> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetSpace)
export class GetSpaceHandler implements IQueryHandler<GetSpace> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly grants: SpaceGrants,
  ) {}

  execute({ spaceId, caller }: GetSpace): Promise<SpaceView> {
    return visibleSpace(this.readStore, this.grants, spaceId, caller);
  }
}
