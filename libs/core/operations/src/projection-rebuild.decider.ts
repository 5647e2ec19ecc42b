// A projection rebuild's one decision: a request is recorded unless one is already requested or under way (asking
// twice starts nothing twice, and records nothing).
import type { Decider } from '#eventsourcing';
import {
  evolveProjectionRebuild,
  initialProjectionRebuildState,
  type ProjectionRebuildEvent,
  type ProjectionRebuildState,
} from './projection-rebuild.events.js';

export interface RequestRebuild {
  readonly projection: string;
  /** The registry says a rebuild is requested or building already. */
  readonly underWay: boolean;
}

const requestRebuild = ({ projection, underWay }: RequestRebuild): ProjectionRebuildEvent[] =>
  underWay ? [] : [{ type: 'ProjectionRebuildRequested', data: { projection } }];

export const projectionRebuildDecider: Decider<
  ProjectionRebuildState,
  RequestRebuild,
  ProjectionRebuildEvent
> = {
  initialState: initialProjectionRebuildState,
  evolve: evolveProjectionRebuild,
  decide: requestRebuild,
};
