// Space commands and the pure decision over them.
import { ConflictError, NotFoundError, ValidationError } from '#kernel';
import type { Decider } from '#eventsourcing';
import { evolveSpace, initialSpaceState, type SpaceEvent, type SpaceState } from './space.events.js';

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const COLOR_PATTERN = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
export const DEFAULT_SPACE_COLOR = '#6366f1';

export interface SpaceFields {
  readonly name: string;
  readonly slug: string;
  readonly description: string;
  readonly color: string;
}

export type SpaceCommand =
  | ({ readonly type: 'CreateSpace'; readonly spaceId: string } & SpaceFields)
  | ({ readonly type: 'ChangeSpace'; readonly spaceId: string } & Partial<SpaceFields>)
  | { readonly type: 'DeleteSpace'; readonly spaceId: string };

function checkFields(fields: Partial<SpaceFields>): void {
  if (fields.name !== undefined && fields.name.trim().length === 0)
    throw new ValidationError('invalid_name', 'name must not be empty', 'name');
  if (fields.slug !== undefined && !SLUG_PATTERN.test(fields.slug))
    throw new ValidationError(
      'invalid_slug',
      'slug may contain only lowercase letters, digits and single hyphens between them',
      'slug',
    );
  if (fields.color !== undefined && !COLOR_PATTERN.test(fields.color))
    throw new ValidationError('invalid_color', 'color must be a hex colour such as #1e88e5', 'color');
}

export function decideSpace(command: SpaceCommand, state: SpaceState): SpaceEvent[] {
  const { spaceId } = command;
  switch (command.type) {
    case 'CreateSpace': {
      if (state.status !== 'absent')
        throw new ConflictError('space_exists', `Space '${spaceId}' already exists`);
      checkFields(command);
      const { name, slug, description, color } = command;
      return [{ type: 'SpaceCreated', data: { spaceId, name: name.trim(), slug, description, color } }];
    }
    case 'ChangeSpace': {
      if (state.status !== 'active') throw new NotFoundError('Space', spaceId);
      checkFields(command);
      const events: SpaceEvent[] = [];
      const name = command.name?.trim();
      if (name !== undefined && name !== state.name)
        events.push({ type: 'SpaceRenamed', data: { spaceId, name } });
      if (command.slug !== undefined && command.slug !== state.slug)
        events.push({ type: 'SpaceSlugChanged', data: { spaceId, slug: command.slug } });
      if (command.description !== undefined && command.description !== state.description)
        events.push({ type: 'SpaceDescriptionChanged', data: { spaceId, description: command.description } });
      if (command.color !== undefined && command.color !== state.color)
        events.push({ type: 'SpaceColorChanged', data: { spaceId, color: command.color } });
      return events;
    }
    case 'DeleteSpace':
      if (state.status === 'absent') throw new NotFoundError('Space', spaceId);
      return state.status === 'deleted' ? [] : [{ type: 'SpaceDeleted', data: { spaceId } }];
  }
}

export const spaceDecider: Decider<SpaceState, SpaceCommand, SpaceEvent> = {
  initialState: initialSpaceState,
  evolve: evolveSpace,
  decide: decideSpace,
};
