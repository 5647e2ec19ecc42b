// The Space aggregate: its events (business facts), its state, and evolve. Its members are part of it (one stream, so
// that "the last owner stays" is decided against every membership at once).
import type { DomainEvent } from '#kernel';
import type { SpaceRole } from '#access';

/** A member's role in a Space (member uses, editor changes content, owner everything): the policy's. */
export type { SpaceRole } from '#access';

export type SpaceEvent =
  | DomainEvent<
      'SpaceCreated',
      {
        readonly spaceId: string;
        readonly name: string;
        readonly slug: string;
        readonly description: string;
        readonly color: string;
        /** Set on a user's private personal Space (created by the platform): that user's id. */
        readonly personalOf?: string;
      }
    >
  | DomainEvent<'SpaceRenamed', { readonly spaceId: string; readonly name: string }>
  | DomainEvent<'SpaceSlugChanged', { readonly spaceId: string; readonly slug: string }>
  | DomainEvent<'SpaceDescriptionChanged', { readonly spaceId: string; readonly description: string }>
  | DomainEvent<'SpaceColorChanged', { readonly spaceId: string; readonly color: string }>
  | DomainEvent<'SpaceDeleted', { readonly spaceId: string }>
  | DomainEvent<
      'SpaceMemberAdded',
      { readonly spaceId: string; readonly userId: string; readonly role: SpaceRole }
    >
  | DomainEvent<
      'SpaceMemberRoleChanged',
      { readonly spaceId: string; readonly userId: string; readonly role: SpaceRole }
    >
  | DomainEvent<'SpaceMemberRemoved', { readonly spaceId: string; readonly userId: string }>;

export type SpaceEventType = SpaceEvent['type'];

export type SpaceState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active' | 'deleted';
      readonly spaceId: string;
      readonly name: string;
      readonly slug: string;
      readonly description: string;
      readonly color: string;
      readonly personalOf?: string;
      /** Its members and their roles (empty for a Space created before members existed, until one is added). */
      readonly members?: Readonly<Record<string, SpaceRole>>;
    };

export const spaceStreamId = (spaceId: string): string => `space-${spaceId}`;

export const initialSpaceState = (): SpaceState => ({ status: 'absent' });

export function evolveSpace(state: SpaceState, event: SpaceEvent): SpaceState {
  switch (event.type) {
    case 'SpaceCreated':
      return { status: 'active', ...event.data };
    case 'SpaceRenamed':
      return state.status === 'absent' ? state : { ...state, name: event.data.name };
    case 'SpaceSlugChanged':
      return state.status === 'absent' ? state : { ...state, slug: event.data.slug };
    case 'SpaceDescriptionChanged':
      return state.status === 'absent' ? state : { ...state, description: event.data.description };
    case 'SpaceColorChanged':
      return state.status === 'absent' ? state : { ...state, color: event.data.color };
    case 'SpaceDeleted':
      return state.status === 'absent' ? state : { ...state, status: 'deleted' };
    case 'SpaceMemberAdded':
    case 'SpaceMemberRoleChanged':
      return state.status === 'absent'
        ? state
        : { ...state, members: { ...state.members, [event.data.userId]: event.data.role } };
    case 'SpaceMemberRemoved': {
      if (state.status === 'absent') return state;
      const { [event.data.userId]: _removed, ...members } = state.members ?? {};
      return { ...state, members };
    }
  }
}
