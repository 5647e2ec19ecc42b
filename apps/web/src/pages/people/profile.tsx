// `/profile`: the signed-in person's own account: name and language (applied at once), password, linked sign-ins and
// open sessions.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { language, t, type Language } from '../../i18n';
import { chooseLanguage } from '../../language-choice';
import type { Me } from '../../state';
import { NameField, NewPasswordField } from '../person-fields';
import { OutcomeLine, useOutcome } from './outcome';
import { LinkedIdentities, OpenSessions } from './profile-access';

function NameAndLanguage({ me, onChanged }: { me: Me; onChanged: () => void }) {
  const [name, setName] = useState(me.name);
  const { outcome, run } = useOutcome();
  const save = async (event: Event) => {
    event.preventDefault();
    if (await run(api('PATCH', 'users/me', { name }), 'profileSaved')) onChanged();
  };
  const switchLanguage = (next: Language) => {
    // The page turns at once; the account remembers it for the next sign-in.
    void run(chooseLanguage(next, me.id));
  };
  return (
    <form class="stack" onSubmit={(e) => void save(e)}>
      <NameField value={name} onInput={setName} />
      <label>
        {t('email')}
        <input value={me.email} readOnly aria-describedby="email-fixed" />
      </label>
      <p id="email-fixed" class="note">
        {t('emailFixed')}
      </p>
      <label>
        {t('language')}
        <select
          name="language"
          value={language()}
          aria-describedby="language-note"
          onChange={(e) => switchLanguage((e.target as HTMLSelectElement).value as Language)}
        >
          <option value="en">English</option>
          <option value="de">Deutsch</option>
        </select>
      </label>
      <p id="language-note" class="note">
        {t('languageApplied')}
      </p>
      <button type="submit">{t('save')}</button>
      <OutcomeLine outcome={outcome} />
    </form>
  );
}

function PasswordChange({ me }: { me: Me }) {
  const [currentPassword, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const { outcome, run } = useOutcome();
  if (me.hasPassword === false) return <p class="note">{t('noPasswordYet')}</p>;
  const change = async (event: Event) => {
    event.preventDefault();
    const done = await run(
      api('POST', 'users/me/password', { currentPassword, password }).then(() => true),
      'passwordChanged',
    );
    if (done) {
      setCurrent('');
      setPassword('');
    }
  };
  return (
    <form class="stack" onSubmit={(e) => void change(e)}>
      <label>
        {t('currentPassword')}
        <input
          type="password"
          name="current-password"
          autocomplete="current-password"
          required
          value={currentPassword}
          onInput={(e) => setCurrent((e.target as HTMLInputElement).value)}
        />
      </label>
      <NewPasswordField value={password} onInput={setPassword} />
      <button type="submit">{t('changePassword')}</button>
      <OutcomeLine outcome={outcome} />
    </form>
  );
}

export function Profile({
  me,
  onChanged,
  onSignedOut,
}: {
  me: Me;
  onChanged: () => void;
  onSignedOut: () => void;
}) {
  return (
    <section class="page people" aria-labelledby="profile-title">
      <h1 id="profile-title">{t('profile')}</h1>
      <NameAndLanguage me={me} onChanged={onChanged} />
      <h2>{t('changePassword')}</h2>
      <PasswordChange me={me} />
      <h2>{t('linkedIdentities')}</h2>
      <LinkedIdentities />
      <h2>{t('openSessions')}</h2>
      <OpenSessions onSignedOut={onSignedOut} />
    </section>
  );
}
