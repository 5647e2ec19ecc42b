// Who may create shared Spaces: an instance setting (admins set it), the roles allowed (default: everyone). Its own
// stream, its decider and its read-model document; the policy's `space.create` reads it. A private personal Space
// is not created through it.
import type { Decider } from '#eventsourcing';
import { defineReadModel } from '#eventsourcing';
import type { DomainEvent } from '#kernel';

export type InstanceRole = 'admin' | 'member';
export const INSTANCE_ROLES: readonly InstanceRole[] = ['admin', 'member'];

export type SpaceCreationEvent = DomainEvent<
  'SpaceCreationRolesSet',
  { readonly creatorRoles: readonly InstanceRole[] }
>;

export interface SpaceCreationState {
  /** null until set: everyone may. */
  readonly creatorRoles: readonly InstanceRole[] | null;
}

export type SpaceCreationCommand = {
  readonly type: 'SetSpaceCreationRoles';
  readonly creatorRoles: readonly InstanceRole[];
};

export const SPACE_CREATION_STREAM = 'instance-settings-space-creation';

const sameRoles = (a: readonly InstanceRole[], b: readonly InstanceRole[]) =>
  a.length === b.length && a.every((role) => b.includes(role));

export const spaceCreationDecider: Decider<SpaceCreationState, SpaceCreationCommand, SpaceCreationEvent> = {
  initialState: () => ({ creatorRoles: null }),
  evolve: (_state, event) => ({ creatorRoles: event.data.creatorRoles }),
  decide: (command, state) => {
    const creatorRoles = INSTANCE_ROLES.filter((role) => command.creatorRoles.includes(role));
    return state.creatorRoles !== null && sameRoles(state.creatorRoles, creatorRoles)
      ? []
      : [{ type: 'SpaceCreationRolesSet', data: { creatorRoles } }];
  },
};

/** The setting as the read model holds it: one document, id `space-creation`. */
export interface SpaceCreationView {
  readonly id: string;
  readonly creatorRoles: readonly InstanceRole[];
  readonly updatedAt: string;
}

export const SPACE_SETTINGS = 'space_settings';
export const SPACE_CREATION_ID = 'space-creation';

export const SPACE_SETTINGS_READ_MODEL = defineReadModel<SpaceCreationView>({
  name: SPACE_SETTINGS,
  projection: 'spaces',
});
