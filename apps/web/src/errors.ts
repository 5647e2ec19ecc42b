// What a person reads when the API refuses or fails: one sentence in the page's language, chosen by the error
// envelope's `code` (a page's own refusals first, then the codes every page meets), else by the HTTP status. The
// API's own message is English and written for developers, so it is never shown.
import { ApiError } from './api';
import { t, type Label } from './i18n';

/** The codes any page may meet: the access policy's reasons and the platform's common refusals. */
const COMMON: Readonly<Record<string, Label>> = {
  admin_required: 'errorAdminOnly',
  marketplace_admin_only: 'errorAdminOnly',
  space_change_denied: 'errorEditorOrOwner',
  agent_creation_denied: 'errorEditorOrOwner',
  skill_change_denied: 'errorEditorOrOwner',
  shared_memory_change_denied: 'errorEditorOrOwner',
  space_member_change_denied: 'errorEditorOrOwner',
  agent_access_denied: 'errorAgentAccess',
  space_creation_restricted: 'errorSpaceCreation',
  space_not_visible: 'errorNotFound',
  usage_limit_exceeded: 'errorUsageLimit',
  rate_limit_exceeded: 'errorTooMany',
  agent_rate_limited: 'errorTooMany',
  blob_too_large: 'errorTooLarge',
  input_too_large: 'errorTooLarge',
  wrong_expected_revision: 'errorConflict',
  model_not_found: 'errorModel',
};

function byStatus(status: number): Label {
  if (status === 401) return 'errorSignedOut';
  if (status === 403) return 'errorForbidden';
  if (status === 404) return 'errorNotFound';
  if (status === 409) return 'errorConflict';
  if (status === 413) return 'errorTooLarge';
  if (status === 429) return 'errorTooMany';
  if (status === 400 || status === 422) return 'errorInvalid';
  if (status >= 500) return 'errorServer';
  return 'errorGeneric';
}

/**
 * The label of the sentence for `error` (anything a failed `api()` call rejects with): rendered in the language of the
 * moment, so a message on screen follows a change of language. `refusals` are the page's own codes, more precise than
 * the common ones (a membership page explains the last-owner rule).
 */
export function errorLabel(error: unknown, refusals: Readonly<Record<string, Label>> = {}): Label {
  if (!(error instanceof ApiError)) return error instanceof TypeError ? 'errorNetwork' : 'errorGeneric';
  return refusals[error.code] ?? COMMON[error.code] ?? byStatus(error.status);
}

/** The sentence for `error`, in the page's language (see errorLabel). */
export const errorSentence = (error: unknown, refusals: Readonly<Record<string, Label>> = {}): string =>
  t(errorLabel(error, refusals));
