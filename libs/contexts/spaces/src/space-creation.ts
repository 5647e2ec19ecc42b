// Who may create shared Spaces: an instance setting (admins set it), the roles allowed (default: everyone). Its own
// stream, its events and its read-model document (its decider: space-creation.decider.ts); the policy's `space.create` reads it. A private personal Space
// is not created through it.
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

export const SPACE_CREATION_STREAM = 'instance-settings-space-creation';

export const initialSpaceCreationState = (): SpaceCreationState => ({ creatorRoles: null });

export const evolveSpaceCreation = (
  _state: SpaceCreationState,
  event: SpaceCreationEvent,
): SpaceCreationState => ({
  creatorRoles: event.data.creatorRoles,
});

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
