// Space commands and the pure decision over them.
import { ConflictError, NotFoundError, ValidationError } from '#kernel';
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveSpace,
  initialSpaceState,
  type SpaceEvent,
  type SpaceRole,
  type SpaceState,
} from './space.events.js';

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const COLOR_PATTERN = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
export const DEFAULT_SPACE_COLOR = '#6366f1';

export interface SpaceFields {
  readonly name: string;
  readonly slug: string;
  readonly description: string;
  readonly color: string;
}

/**
 * A membership command names the Space's creator as the loader found it (`creatorUserId`): a Space created before
 * members existed has none recorded, and its creator is its owner. The first membership change of such a Space
 * records that owner first, so that "the last owner stays" holds for it too.
 */
interface MembershipCommand {
  readonly spaceId: string;
  readonly userId: string;
  readonly creatorUserId?: string | null;
}

export type SpaceCommand =
  | ({
      readonly type: 'CreateSpace';
      readonly spaceId: string;
      /** The user who creates it (its first owner); none when the platform creates it. */
      readonly ownerUserId?: string | null;
    } & SpaceFields)
  | {
      /** A user's private personal Space (idempotent: nothing to do when it exists). */
      readonly type: 'CreatePersonalSpace';
      readonly spaceId: string;
      readonly userId: string;
      readonly name: string;
      readonly slug: string;
    }
  | (MembershipCommand & { readonly type: 'AddSpaceMember'; readonly role: SpaceRole })
  | (MembershipCommand & { readonly type: 'ChangeSpaceMemberRole'; readonly role: SpaceRole })
  | (MembershipCommand & { readonly type: 'RemoveSpaceMember' })
  | {
      /**
       * A Space from before members (none recorded): its creator becomes its owner (the legacy-space-owner process).
       * Idempotent: a Space with members, a personal or a deleted one, or none at all, needs nothing.
       */
      readonly type: 'AdoptSpaceCreator';
      readonly spaceId: string;
      readonly creatorUserId: string;
    }
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

type SpaceOf<Type extends SpaceCommand['type']> = Extract<SpaceCommand, { readonly type: Type }>;

function createSpace(command: SpaceOf<'CreateSpace'>, state: SpaceState): SpaceEvent[] {
  const { spaceId } = command;
  if (state.status !== 'absent') throw new ConflictError('space_exists', `Space '${spaceId}' already exists`);
  checkFields(command);
  const { name, slug, description, color, ownerUserId } = command;
  const events: SpaceEvent[] = [
    { type: 'SpaceCreated', data: { spaceId, name: name.trim(), slug, description, color } },
  ];
  if (ownerUserId)
    events.push({ type: 'SpaceMemberAdded', data: { spaceId, userId: ownerUserId, role: 'owner' } });
  return events;
}

function createPersonalSpace(command: SpaceOf<'CreatePersonalSpace'>, state: SpaceState): SpaceEvent[] {
  const { spaceId } = command;
  if (state.status !== 'absent') return [];
  const { userId, name, slug } = command;
  checkFields({ name, slug });
  return [
    {
      type: 'SpaceCreated',
      data: { spaceId, name, slug, description: '', color: DEFAULT_SPACE_COLOR, personalOf: userId },
    },
    { type: 'SpaceMemberAdded', data: { spaceId, userId, role: 'owner' } },
  ];
}

function changeSpace(command: SpaceOf<'ChangeSpace'>, state: SpaceState): SpaceEvent[] {
  const { spaceId } = command;
  if (state.status !== 'active') throw new NotFoundError('Space', spaceId);
  checkFields(command);
  if (
    state.personalOf &&
    ((command.name !== undefined && command.name.trim() !== state.name) ||
      (command.slug !== undefined && command.slug !== state.slug))
  )
    throw new ConflictError(
      'personal_space_locked',
      'a private personal Space keeps its name and slug (its description and colour may change)',
    );
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

function deleteSpace(command: SpaceOf<'DeleteSpace'>, state: SpaceState): SpaceEvent[] {
  const { spaceId } = command;
  if (state.status === 'absent') throw new NotFoundError('Space', spaceId);
  if (state.status === 'active' && state.personalOf)
    throw new ConflictError('personal_space_undeletable', 'a private personal Space cannot be deleted');
  return state.status === 'deleted' ? [] : [{ type: 'SpaceDeleted', data: { spaceId } }];
}

function adoptSpaceCreator(command: SpaceOf<'AdoptSpaceCreator'>, state: SpaceState): SpaceEvent[] {
  const { spaceId } = command;
  return state.status === 'active' && !state.personalOf && Object.keys(state.members ?? {}).length === 0
    ? [{ type: 'SpaceMemberAdded', data: { spaceId, userId: command.creatorUserId, role: 'owner' } }]
    : [];
}

export const decideSpace = decideByType<SpaceState, SpaceCommand, SpaceEvent>({
  CreateSpace: createSpace,
  CreatePersonalSpace: createPersonalSpace,
  ChangeSpace: changeSpace,
  DeleteSpace: deleteSpace,
  AddSpaceMember: decideMembership,
  ChangeSpaceMemberRole: decideMembership,
  RemoveSpaceMember: decideMembership,
  AdoptSpaceCreator: adoptSpaceCreator,
});

type Membership = Extract<
  SpaceCommand,
  { type: 'AddSpaceMember' | 'ChangeSpaceMemberRole' | 'RemoveSpaceMember' }
>;

const NOT_A_MEMBER = (spaceId: string, userId: string) =>
  new NotFoundError('Space member', `${spaceId}/${userId}`);

function decideMembership(command: Membership, state: SpaceState): SpaceEvent[] {
  const { spaceId, userId } = command;
  if (state.status !== 'active') throw new NotFoundError('Space', spaceId);
  if (state.personalOf)
    throw new ConflictError('personal_space_unshareable', 'a private personal Space cannot be shared');
  // A Space from before members: its creator is its owner, recorded with the first membership change.
  const recorded = state.members ?? {};
  const adopt: SpaceEvent[] =
    Object.keys(recorded).length === 0 && command.creatorUserId
      ? [{ type: 'SpaceMemberAdded', data: { spaceId, userId: command.creatorUserId, role: 'owner' } }]
      : [];
  const members: Record<string, SpaceRole> =
    adopt.length > 0 ? { [command.creatorUserId!]: 'owner' } : { ...recorded };
  const current = members[userId];
  const owners = Object.values(members).filter((role) => role === 'owner').length;
  const lastOwner = () =>
    new ConflictError('last_owner', `the last owner of Space '${spaceId}' cannot leave or be demoted`);
  switch (command.type) {
    case 'AddSpaceMember':
      if (current === command.role) return adopt;
      if (current !== undefined)
        throw new ConflictError(
          'space_member_exists',
          `the user is already a member of Space '${spaceId}' (as ${current}): change their role instead`,
          'userId',
        );
      return [...adopt, { type: 'SpaceMemberAdded', data: { spaceId, userId, role: command.role } }];
    case 'ChangeSpaceMemberRole':
      if (current === undefined) throw NOT_A_MEMBER(spaceId, userId);
      if (current === command.role) return adopt;
      if (current === 'owner' && owners === 1) throw lastOwner();
      return [...adopt, { type: 'SpaceMemberRoleChanged', data: { spaceId, userId, role: command.role } }];
    case 'RemoveSpaceMember':
      if (current === undefined) return adopt;
      if (current === 'owner' && owners === 1) throw lastOwner();
      return [...adopt, { type: 'SpaceMemberRemoved', data: { spaceId, userId } }];
  }
}

export const spaceDecider: Decider<SpaceState, SpaceCommand, SpaceEvent> = {
  initialState: initialSpaceState,
  evolve: evolveSpace,
  decide: decideSpace,
};
