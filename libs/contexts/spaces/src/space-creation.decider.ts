// The Space creation setting's one command and its pure decision: an event only when the allowed roles change.
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveSpaceCreation,
  initialSpaceCreationState,
  INSTANCE_ROLES,
  type InstanceRole,
  type SpaceCreationEvent,
  type SpaceCreationState,
} from './space-creation.js';

export type SpaceCreationCommand = {
  readonly type: 'SetSpaceCreationRoles';
  readonly creatorRoles: readonly InstanceRole[];
};

const sameRoles = (a: readonly InstanceRole[], b: readonly InstanceRole[]) =>
  a.length === b.length && a.every((role) => b.includes(role));

function setSpaceCreationRoles(
  command: SpaceCreationCommand,
  state: SpaceCreationState,
): SpaceCreationEvent[] {
  const creatorRoles = INSTANCE_ROLES.filter((role) => command.creatorRoles.includes(role));
  return state.creatorRoles !== null && sameRoles(state.creatorRoles, creatorRoles)
    ? []
    : [{ type: 'SpaceCreationRolesSet', data: { creatorRoles } }];
}

export const spaceCreationDecider: Decider<SpaceCreationState, SpaceCreationCommand, SpaceCreationEvent> = {
  initialState: initialSpaceCreationState,
  evolve: evolveSpaceCreation,
  decide: decideByType<SpaceCreationState, SpaceCreationCommand, SpaceCreationEvent>({
    SetSpaceCreationRoles: setSpaceCreationRoles,
  }),
};
