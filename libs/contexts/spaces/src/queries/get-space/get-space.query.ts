// One Space, if the caller may see it (404 whether or not it exists otherwise). With `asOf`, the Space as it was
// then, folded from its stream with the decider's evolve (404 when it did not exist yet or was deleted by then); a
// caller sees it if it sees the live Space or may change it (its creator key, admins), so a deleted Space's past
// stays readable to them.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '#kernel';
import { canChangeSpace, type Caller } from '#access';
import { EVENT_STORE, type EventStore } from '#event-store';
import { loadStateAsOf } from '#eventsourcing';
import { READ_STORE, type ReadStore } from '#read-store';
import { maySeeSpace, SpaceGrants, visibleSpace } from '../../space-visibility.js';
import { spaceReply, type SpaceView } from '../../spaces.read-model.js';
import { evolveSpace, initialSpaceState, spaceStreamId, type SpaceState } from '../../space.events.js';

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

/** The Space as of a time, folded from its stream; null when it did not exist then (or was deleted by then). */
export async function spaceAsOf(store: EventStore, spaceId: string, asOf: Date): Promise<SpaceView | null> {
  const { state, firstAt, lastAt, events } = await loadStateAsOf<
    SpaceState,
    Parameters<typeof evolveSpace>[1]
  >(store, spaceStreamId(spaceId), asOf, initialSpaceState(), evolveSpace);
  if (state.status !== 'active') return null;
  const creator = events[0]!.metadata.actor;
  return {
    id: state.spaceId,
    name: state.name,
    slug: state.slug,
    description: state.description,
    color: state.color,
    createdByApiKeyId: creator.kind === 'apiKey' ? creator.id : null,
    createdByUserId: creator.kind === 'user' ? creator.id : null,
    ...(state.members ? { members: state.members } : {}),
    ...(state.personalOf ? { personalOf: state.personalOf } : {}),
    createdAt: firstAt!,
    updatedAt: lastAt!,
  };
}

@QueryHandler(GetSpace)
export class GetSpaceHandler implements IQueryHandler<GetSpace> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    private readonly grants: SpaceGrants,
  ) {}

  async execute({ spaceId, caller, asOf }: GetSpace): Promise<SpaceView> {
    if (!asOf) return spaceReply(await visibleSpace(this.readStore, this.grants, spaceId, caller));
    const space = await spaceAsOf(this.eventStore, spaceId, asOf);
    if (
      !space ||
      !(canChangeSpace(caller, space) || (await maySeeSpace(this.readStore, this.grants, spaceId, caller)))
    )
      throw new NotFoundError('Space', spaceId);
    return spaceReply(space);
  }
}
