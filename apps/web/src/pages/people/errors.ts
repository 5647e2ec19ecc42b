// The API's refusals on the people pages as sentences in the page's language (the API's own messages are English):
// by the error envelope's code, then by its status, so that a 403 says who may do it.
import { ApiError } from '../../api';
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

const BY_STATUS: Readonly<Record<number, Label>> = {
  400: 'invalidInput',
  401: 'sessionOver',
  403: 'refusedAdminOnly',
  404: 'notFoundAnymore',
  429: 'tooManyAttempts',
  502: 'providerUnreachable',
};

/** The sentence for a failed call (a label: rendered in the language of the moment, which may change). */
export function sentenceOf(error: unknown): Label {
  if (!(error instanceof ApiError)) return 'linkFailed';
  return BY_CODE[error.code] ?? BY_STATUS[error.status] ?? 'linkFailed';
}
