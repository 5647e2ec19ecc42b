// A Space's roles in rank order, a member as the members route answers it, and the API's refusals of a membership
// change in the person's language.
import { errorSentence } from '../../errors';
import { t, type Label } from '../../i18n';

export type Role = 'member' | 'editor' | 'owner';
export const ROLES: readonly Role[] = ['member', 'editor', 'owner'];
export const rank = (role: Role | null): number => (role === null ? -1 : ROLES.indexOf(role));
export const roleLabel = (role: Role): string => t(`role_${role}`);

export interface Member {
  readonly userId: string;
  readonly name?: string | null;
  readonly role: Role;
  readonly addedAt: string;
}

/** The API's refusals of a membership change, in the person's language (else the API's own message). */
const REFUSALS: Readonly<Record<string, Label>> = {
  last_owner: 'refusedLastOwner',
  own_role_change_denied: 'refusedOwnRole',
  role_above_own: 'refusedRoleAboveOwn',
  space_member_change_denied: 'refusedMemberChange',
  space_member_exists: 'refusedMemberExists',
  unknown_user: 'refusedUnknownUser',
  personal_space_unshareable: 'refusedPersonalSpace',
};

export const refusal = (error: unknown): string => errorSentence(error, REFUSALS);
