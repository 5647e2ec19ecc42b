// The pages the platform's mails link to: accepting an invitation (`/invitations/accept#token=…`: name and password,
// or the organisation's sign-in when SSO providers are configured; it signs the person in) and setting a new password
// (`/password-reset#token=…`, then on to sign-in). The token stays in the fragment (never sent to a server, never in
// a Referer) and goes only to the public API. Open without a session, in the person's language.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { language, t, type Label } from '../i18n';
import { navigate } from '../router';
import { NameField, NewPasswordField } from './person-fields';
import { ProviderButtons, useProviders } from './sign-in';

/** The token of the link's fragment, or '' when the link lost it. */
const linkToken = (): string => new URLSearchParams(location.hash.slice(1)).get('token') ?? '';

// The API's refusals of a link, in the person's words (the API's own messages are English).
const REFUSALS: Readonly<Record<string, Label>> = {
  invalid_invitation: 'linkInvalid',
  invalid_reset_link: 'linkInvalid',
  invitation_expired: 'linkExpired',
  reset_link_expired: 'linkExpired',
  invitation_used: 'invitationUsed',
  invitation_revoked: 'invitationRevoked',
  email_taken: 'emailTaken',
  user_deactivated: 'accountDeactivated',
  password_sign_in_disabled: 'passwordSignInOff',
};

const refusalOf = (error: unknown): Label => {
  if (!(error instanceof ApiError)) return 'linkFailed';
  if (error.status === 429) return 'tooManyAttempts';
  return REFUSALS[error.code] ?? 'linkFailed';
};

function LinkPage({
  title,
  text,
  languageSwitch,
  children,
}: {
  title: string;
  text: string;
  languageSwitch: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <section class="sign-in" aria-labelledby="link-title">
      <h1 id="link-title">{title}</h1>
      <p>{text}</p>
      {children}
      {languageSwitch}
    </section>
  );
}

/** A new password (and the page's other fields) sent with the link's token; the API's refusal shown as a sentence. */
function PasswordForm({
  submitLabel,
  send,
  children,
}: {
  submitLabel: string;
  send: (token: string, password: string) => Promise<void>;
  children?: ComponentChildren;
}) {
  const token = linkToken();
  const [password, setPassword] = useState('');
  const [refusal, setRefusal] = useState<Label | null>(token ? null : 'linkInvalid');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setRefusal(null);
    setBusy(true);
    try {
      await send(token, password);
    } catch (error) {
      setRefusal(refusalOf(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {token && (
        <form onSubmit={(e) => void submit(e)}>
          {children}
          <NewPasswordField value={password} onInput={setPassword} />
          <button type="submit" disabled={busy}>
            {submitLabel}
          </button>
        </form>
      )}
      {refusal && (
        <p role="alert" class="error">
          {t(refusal)}
        </p>
      )}
    </>
  );
}

/** `/invitations/accept#token=…`: joins with a name and a password (signed in at once), or through SSO. */
export function AcceptInvitation({
  onAccepted,
  languageSwitch,
}: {
  onAccepted: () => void;
  languageSwitch: ComponentChildren;
}) {
  const [name, setName] = useState('');
  const { providers, passwordSignIn } = useProviders();
  const accept = async (token: string, password: string) => {
    await api('POST', 'invitations/accept', { token, name, password, language: language() });
    onAccepted();
  };
  return (
    <LinkPage title={t('invitationTitle')} text={t('invitationText')} languageSwitch={languageSwitch}>
      {passwordSignIn && (
        <PasswordForm submitLabel={t('acceptInvitation')} send={accept}>
          <NameField value={name} onInput={setName} />
        </PasswordForm>
      )}
      {providers.length > 0 && (
        <>
          <p>{t('invitationSso')}</p>
          <ProviderButtons providers={providers} returnTo="/" />
        </>
      )}
    </LinkPage>
  );
}

/** `/password-reset#token=…`: sets a new password, then on to sign-in with it. */
export function PasswordReset({ languageSwitch }: { languageSwitch: ComponentChildren }) {
  const [done, setDone] = useState(false);
  const reset = async (token: string, password: string) => {
    await api('POST', 'auth/password-reset', { token, password });
    // The link is spent: it leaves the address bar and the history entry.
    history.replaceState(null, '', '/password-reset');
    setDone(true);
  };
  return (
    <LinkPage title={t('resetTitle')} text={t('resetText')} languageSwitch={languageSwitch}>
      {done ? (
        <>
          <p role="status">{t('passwordSet')}</p>
          <button type="button" onClick={() => navigate('/sign-in')}>
            {t('goToSignIn')}
          </button>
        </>
      ) : (
        <PasswordForm submitLabel={t('setPassword')} send={reset} />
      )}
    </LinkPage>
  );
}
