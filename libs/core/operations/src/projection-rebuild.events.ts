// Who asked for a projection's rebuild, and when: one stream per projection (`projection-<name>`: the audit trail lists it as the resource `projection` `<name>`). The
// request itself reaches the runner through the projection registry's `rebuildRequested` (as the CLI's does); the
// event is the record of it in the log (the audit trail's "requested a rebuild").
import type { DomainEvent } from '#kernel';

export type ProjectionRebuildEvent = DomainEvent<
  'ProjectionRebuildRequested',
  {
    readonly projection: string;
  }
>;

export interface ProjectionRebuildState {
  readonly requests: number;
}

export const projectionRebuildStreamId = (projection: string): string => `projection-${projection}`;

export const initialProjectionRebuildState = (): ProjectionRebuildState => ({ requests: 0 });

export const evolveProjectionRebuild = (
  state: ProjectionRebuildState,
  _event: ProjectionRebuildEvent,
): ProjectionRebuildState => ({ requests: state.requests + 1 });
