// The Apps admins register: their list (each with its `/meta`, last error, token and enablement) and the register
// form. A new App's bearer token is shown once.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { errorSentence } from '../errors';
import { t } from '../i18n';
import type { Agent, List } from '../state';
import { AppCard } from './apps/app-card';
import { AppRegister } from './apps/app-register';
import type { App } from './apps/app-types';
import { SecretOnce } from './apps/secret-once';

export function Apps() {
  const [apps, setApps] = useState<App[] | null>(null);
  const [agents, setAgents] = useState<Agent[]>([]);
  const [issued, setIssued] = useState<{ name: string; token: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<List<App>>('GET', 'apps?limit=200').then(
      (l) => setApps(l.data),
      (failure: unknown) => {
        setApps([]);
        setError(errorSentence(failure));
      },
    );
  useEffect(() => {
    void load();
    void api<List<Agent>>('GET', 'agents?limit=200').then(
      (l) => setAgents(l.data),
      () => undefined,
    );
  }, []);
  return (
    <section class="page" aria-labelledby="apps-title">
      <h1 id="apps-title">{t('apps')}</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {issued && (
        <SecretOnce
          label={t('appTokenOnce', { name: issued.name })}
          secret={issued.token}
          onDone={() => setIssued(null)}
        />
      )}
      {apps === null ? (
        <p>{t('loading')}</p>
      ) : apps.length === 0 ? (
        <p class="note">{t('appsNone')}</p>
      ) : (
        <ul class="apps">
          {apps.map((app) => (
            <AppCard key={app.id} app={app} agents={agents} onChanged={() => void load()} />
          ))}
        </ul>
      )}
      <AppRegister
        onRegistered={(app, token) => {
          if (token) setIssued({ name: app.name, token });
          void load();
        }}
      />
    </section>
  );
}
