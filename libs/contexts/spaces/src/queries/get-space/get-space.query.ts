// One Space, if the caller may see it (404 whether or not it exists otherwise). With `asOf`, the Space as it was
// then, folded from its stream with the decider's evolve (404 when it did not exist yet or was deleted by then); a
// caller sees it if it sees the live Space or, deleted since, may change it (its owners, admins), so a deleted
// Space's past stays readable to them (the SpaceResolver's seeAsOf).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '#kernel';
import { Requires, type Caller } from '#access';
import { EVENT_STORE, type EventStore } from '#event-store';
import { READ_STORE, type ReadStore } from '#read-store';
import { spaceAsOf } from '../../space-as-of.js';
import { spaceById } from '../../space-membership.js';
import { SpaceResolver } from '../../space-resolver.js';
import { spaceReply, type SpaceView } from '../../spaces.read-model.js';

@Requires(SpaceResolver, (spaces, { spaceId, caller, asOf }: GetSpace) =>
  asOf ? spaces.seeAsOf(spaceId, asOf, caller) : spaces.see(spaceId, caller),
)
export class GetSpace extends Query<SpaceView> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    /** Answer the Space as of this time rather than now. */
    readonly asOf?: Date,
  ) {
    super();
  }
}

@QueryHandler(GetSpace)
export class GetSpaceHandler implements IQueryHandler<GetSpace> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
  ) {}

  async execute({ spaceId, asOf }: GetSpace): Promise<SpaceView> {
    if (!asOf) return spaceReply(await spaceById(this.readStore, spaceId));
    const space = await spaceAsOf(this.eventStore, spaceId, asOf);
    if (!space) throw new NotFoundError('Space', spaceId);
    return spaceReply(space);
  }
}
