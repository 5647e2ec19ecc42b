// Sign-in: email and password (the session cookie), and a button per configured SSO/social provider when the
// platform lists them (GET /auth/providers; absent on an instance without them).
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { errorSentence } from '../errors';
import { t, type Label } from '../i18n';

// A refused sign-in in the person's words (a 401 here is a wrong password, not an ended session).
const SIGN_IN_REFUSALS: Readonly<Record<string, Label>> = {
  invalid_credentials: 'errorCredentials',
  user_deactivated: 'accountDeactivated',
  password_sign_in_disabled: 'passwordSignInOff',
};

interface Provider {
  readonly id: string;
  readonly kind: string;
  readonly name: string;
}

/** The configured SSO/social providers, and whether password sign-in is on (as GET /auth/providers says). */
export function useProviders(): { providers: Provider[]; passwordSignIn: boolean } {
  const [providers, setProviders] = useState<Provider[]>([]);
  const [passwordSignIn, setPasswordSignIn] = useState(true);
  useEffect(() => {
    api<{ data: Provider[]; passwordSignIn?: boolean }>('GET', 'auth/providers').then(
      (answer) => {
        setProviders(answer.data);
        setPasswordSignIn(answer.passwordSignIn !== false);
      },
      () => undefined,
    );
  }, []);
  return { providers, passwordSignIn };
}

/** A "Sign in with …" button per provider; the provider's sign-in comes back to `returnTo`. */
export function ProviderButtons({ providers, returnTo }: { providers: Provider[]; returnTo: string }) {
  if (providers.length === 0) return null;
  return (
    <ul class="providers">
      {providers.map((provider) => (
        <li key={provider.id}>
          <a
            class="button"
            href={`/api/v1/core/auth/oidc/${encodeURIComponent(provider.id)}/start?returnTo=${encodeURIComponent(returnTo)}`}
          >
            {t('signInWith', { name: provider.name })}
          </a>
        </li>
      ))}
    </ul>
  );
}

export function SignIn({
  onSignedIn,
  languageSwitch,
}: {
  onSignedIn: () => void;
  languageSwitch: ComponentChildren;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const { providers, passwordSignIn } = useProviders();
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      await api('POST', 'auth/sign-in', { email, password });
      if (location.pathname === '/sign-in') history.replaceState(null, '', '/');
      onSignedIn();
    } catch (failure) {
      setError(t('signInFailed', { message: errorSentence(failure, SIGN_IN_REFUSALS) }));
    }
  };
  const returnTo = location.pathname === '/sign-in' ? '/' : location.pathname + location.search;
  return (
    <section class="sign-in" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">{t('signIn')}</h1>
      {passwordSignIn && (
        <form onSubmit={(e) => void submit(e)}>
          <label>
            {t('email')}
            <input
              type="email"
              name="email"
              autocomplete="username"
              required
              value={email}
              onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
            />
          </label>
          <label>
            {t('password')}
            <input
              type="password"
              name="password"
              autocomplete="current-password"
              required
              value={password}
              onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
            />
          </label>
          <button type="submit">{t('signIn')}</button>
        </form>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <ProviderButtons providers={providers} returnTo={returnTo} />
      {languageSwitch}
    </section>
  );
}
