// A refusal of the Apps routes as an admin reads it: the sentence for its code in the page's language and, for an MCP
// server that could not be used, the reason the API gives (technical, and English: marked so, for screen readers).
import { ApiError } from '../../api';
import { errorSentence } from '../../errors';
import { t } from '../../i18n';

const APP_REFUSALS = {
  invalid_field: 'appInvalid',
  missing_field: 'appInvalid',
  app_unreachable: 'appMcpUnreachable',
} as const;

/** The API's sentence starts with what the translated one already says; the rest is the reason. */
const reasonOf = (failure: unknown): string | null =>
  failure instanceof ApiError && failure.code === 'app_unreachable'
    ? failure.message.replace(/^The MCP server could not be used:\s*/, '')
    : null;

export function AppError({ failure }: { failure: unknown }) {
  const reason = reasonOf(failure);
  return (
    <p role="alert" class="error">
      {errorSentence(failure, APP_REFUSALS)}
      {reason && (
        <>
          {' '}
          {t('appMcpReason')} <q lang="en">{reason}</q>
        </>
      )}
    </p>
  );
}
