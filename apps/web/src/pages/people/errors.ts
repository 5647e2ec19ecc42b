// The API's refusals on the people pages as sentences in the page's language (the API's own messages are English):
// the people routes' own codes, then the codes and statuses every page meets (errorLabel).
import { ApiError } from '../../api';
import { errorLabel } from '../../errors';
import type { Label } from '../../i18n';

const BY_CODE: Readonly<Record<string, Label>> = {
  wrong_password: 'wrongPassword',
  own_role_unchangeable: 'youAreThis',
  own_account_deactivation: 'youAreThis',
  last_admin: 'refusedLastAdmin',
  email_taken: 'emailTaken',
  invitation_used: 'invitationUsed',
  invitation_revoked: 'invitationRevoked',
  identity_linked_elsewhere: 'identityLinkedElsewhere',
  grant_unusable: 'grantUnusable',
  password_sign_in_disabled: 'passwordSignInOff',
  user_deactivated: 'accountDeactivated',
};

/**
 * The sentence for a failed call (a label: rendered in the language of the moment, which may change). A 502 on these
 * pages is a sign-in provider that did not answer.
 */
export const sentenceOf = (error: unknown): Label =>
  error instanceof ApiError && error.status === 502 && !BY_CODE[error.code]
    ? 'providerUnreachable'
    : errorLabel(error, BY_CODE);
