// The api's /health and /metrics read the projections' health and the log's head through these queries: a controller
// reads no store itself.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#event-store';
import { READ_STORE, type ReadStore } from '#read-store';
import { AskedAtRoute, ProjectionRunner, PROJECTORS, type Projector } from '#eventsourcing';
import { projectionHealth, type ProjectionHealth } from './projection-health.js';

/** State, checkpoint and lag of every projector of this process. */
@AskedAtRoute('the health and metrics routes: public (no credential)')
export class GetProjectionHealth extends Query<ProjectionHealth[]> {}

/** The position of the newest event in the log. */
@AskedAtRoute('the health and metrics routes: public')
export class GetLogHead extends Query<number> {}

@QueryHandler(GetProjectionHealth)
export class GetProjectionHealthHandler implements IQueryHandler<GetProjectionHealth, ProjectionHealth[]> {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PROJECTORS) private readonly projectors: Projector[],
    private readonly runner: ProjectionRunner,
  ) {}

  execute(): Promise<ProjectionHealth[]> {
    return projectionHealth(
      this.eventStore,
      this.readStore,
      this.runner,
      this.projectors.map((p) => p.name),
    );
  }
}

@QueryHandler(GetLogHead)
export class GetLogHeadHandler implements IQueryHandler<GetLogHead, number> {
  constructor(@Inject(EVENT_STORE) private readonly eventStore: EventStore) {}

  execute(): Promise<number> {
    return this.eventStore.headPosition();
  }
}
