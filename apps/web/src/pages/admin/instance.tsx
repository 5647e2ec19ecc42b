// Admins' instance settings: who may create Spaces, and the sign-in providers as configured (read-only: they come
// from the providers file).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { t, type Label } from '../../i18n';
import { useProviders } from '../sign-in';
import { OutcomeLine, useOutcome } from '../people/outcome';

type Creators = 'admins' | 'everyone';

export function SpaceCreation() {
  const [creators, setCreators] = useState<Creators | null>(null);
  const { outcome, run, read } = useOutcome();
  useEffect(() => {
    void read(api<{ creatorRoles: string[] }>('GET', 'settings/space-creation')).then(
      (s) => s && setCreators(s.creatorRoles.includes('member') ? 'everyone' : 'admins'),
    );
  }, []);
  const choose = async (next: Creators) => {
    const creatorRoles = next === 'everyone' ? ['admin', 'member'] : ['admin'];
    if (
      await run(
        api('PUT', 'settings/space-creation', { creatorRoles }).then(() => true),
        'saved',
      )
    )
      setCreators(next);
  };
  return (
    <fieldset>
      <legend class="visually-hidden">{t('spaceCreation')}</legend>
      {(['admins', 'everyone'] as const).map((option) => (
        <label key={option} class="check">
          <input
            type="radio"
            name="space-creation"
            value={option}
            checked={creators === option}
            onChange={() => void choose(option)}
          />
          {t(option === 'admins' ? 'spaceCreationAdmins' : 'spaceCreationEveryone')}
        </label>
      ))}
      <OutcomeLine outcome={outcome} />
    </fieldset>
  );
}

export function SignInProviders() {
  const { providers, passwordSignIn } = useProviders();
  return (
    <>
      <p>{passwordSignIn ? t('passwordSignInOn') : t('passwordSignInOffNote')}</p>
      {providers.length === 0 ? (
        <p class="note">{t('ssoNone')}</p>
      ) : (
        <ul class="rows">
          {providers.map((provider) => (
            <li key={provider.id}>
              <span>
                {provider.name} · {t(`providerKind_${provider.kind}` as Label)} · <code>{provider.id}</code>
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
