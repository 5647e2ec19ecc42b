// Spaces: seeing, changing, their members and prompts; creating shared ones.
import {
  mayChangeMembership,
  adminOver,
  allowIf,
  atLeast,
  deny,
  isAdmin,
  isUser,
  mayChangeContent,
  mayChangeSpace,
  roleIn,
} from './roles.js';
import type { RuleSet } from './resources.js';

export const SPACES_RULES: RuleSet<
  | 'space.create'
  | 'space.read'
  | 'space.change'
  | 'space.content.change'
  | 'space.members.read'
  | 'space.member.change'
  | 'space.member.candidates'
  | 'prompt.read'
  | 'prompt.change'
> = {
  'space.create': (principal, setting) =>
    !(isUser(principal) || isAdmin(principal))
      ? deny('principal_not_supported')
      : allowIf(
          isAdmin(principal) || setting === null || setting.creatorRoles.includes('member'),
          'space_creation_restricted',
        ),
  'space.read': (principal, { space, holdsReachableAgent }) =>
    allowIf(
      adminOver(principal, space) || holdsReachableAgent || roleIn(principal, space) !== null,
      'space_not_visible',
    ),
  'space.change': (principal, space) => allowIf(mayChangeSpace(principal, space), 'space_change_denied'),
  'space.content.change': (principal, space) =>
    allowIf(mayChangeContent(principal, space), 'space_change_denied'),
  'space.members.read': (principal, space) =>
    allowIf(adminOver(principal, space) || roleIn(principal, space) !== null, 'space_not_visible'),
  'space.member.change': (principal, change) => mayChangeMembership(principal, change),
  // Deny by default: a directory of the instance's people only for whoever may add someone (editor, owner, admin).
  'space.member.candidates': (principal, space) =>
    space.personalOf
      ? deny('personal_space_unshareable')
      : allowIf(
          adminOver(principal, space) || atLeast(roleIn(principal, space), 'editor'),
          'space_member_change_denied',
        ),
  'prompt.read': (principal, space) =>
    allowIf(adminOver(principal, space) || roleIn(principal, space) !== null, 'space_not_visible'),
  'prompt.change': (principal, space) => allowIf(mayChangeContent(principal, space), 'space_change_denied'),
};
