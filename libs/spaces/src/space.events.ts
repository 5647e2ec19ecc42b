// The Space aggregate: its events (business facts), its state, and evolve.
import type { DomainEvent } from '#kernel';

export type SpaceEvent =
  | DomainEvent<
      'SpaceCreated',
      {
        readonly spaceId: string;
        readonly name: string;
        readonly slug: string;
        readonly description: string;
        readonly color: string;
      }
    >
  | DomainEvent<'SpaceRenamed', { readonly spaceId: string; readonly name: string }>
  | DomainEvent<'SpaceSlugChanged', { readonly spaceId: string; readonly slug: string }>
  | DomainEvent<'SpaceDescriptionChanged', { readonly spaceId: string; readonly description: string }>
  | DomainEvent<'SpaceColorChanged', { readonly spaceId: string; readonly color: string }>
  | DomainEvent<'SpaceDeleted', { readonly spaceId: string }>;

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
  }
}
