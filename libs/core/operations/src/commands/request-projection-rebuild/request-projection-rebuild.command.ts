// An admin's request to rebuild a projection (POST /projections/{name}/rebuild; the route's row admits admins only).
// The request is recorded as an event (who asked, when) and handed to the runner that holds the projection's lease
// through the registry's `rebuildRequested`, as `projections rebuild` does from the CLI: that runner builds a new
// generation beside the live one and switches readers to it when it has caught up. A second request while one is
// requested or building records nothing.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import {
  AggregateRepository,
  AskedAtRoute,
  PROJECTORS,
  type CommandContext,
  type Projector,
} from '#eventsourcing';
import { projectionRebuildDecider } from '../../projection-rebuild.decider.js';
import { projectionRebuildStreamId } from '../../projection-rebuild.events.js';

export interface RebuildRequest {
  readonly projection: string;
  /** `requested`: recorded now; `underWay`: one was requested or building already. */
  readonly outcome: 'requested' | 'underWay';
  readonly position: number | null;
}

@AskedAtRoute("the route's row: instance.settings.manage (admins); only that route sends it")
export class RequestProjectionRebuild extends Command<RebuildRequest> {
  constructor(
    readonly projection: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RequestProjectionRebuild)
export class RequestProjectionRebuildHandler implements ICommandHandler<RequestProjectionRebuild> {
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PROJECTORS) private readonly projectors: Projector[],
  ) {}

  async execute({ projection, context }: RequestProjectionRebuild): Promise<RebuildRequest> {
    if (!this.projectors.some((projector) => projector.name === projection))
      throw new NotFoundError('Projection', projection);
    const record = await this.readStore.projection(projection);
    const underWay = !!record && (record.rebuildRequested || record.buildingGeneration !== null);
    const { events, position } = await this.aggregates.decide(
      projectionRebuildStreamId(projection),
      projectionRebuildDecider,
      { projection, underWay },
      context,
    );
    if (events.length === 0) return { projection, outcome: 'underWay', position: null };
    // After the event: a request the log does not record never starts a rebuild.
    await this.readStore.saveProjection({ name: projection, rebuildRequested: true });
    return { projection, outcome: 'requested', position };
  }
}
