// Under an answer whose tool call reached an App that acts in each person's name before this person connected their
// account: the App's name, and the button that starts connecting (the browser goes to the App's sign-in and comes back
// to this conversation). The model was told the same, as the call's error.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import { AppError } from '../apps/app-error';
import type { ConnectAsked } from './types';

export function AppConnects({
  asked,
  appNames,
}: {
  asked: readonly ConnectAsked[];
  appNames: ReadonlyMap<string, string>;
}) {
  const [error, setError] = useState<unknown>(null);
  const connect = ({ connectUrl }: ConnectAsked) => {
    setError(null);
    void api<{ authorizationUrl: string }>('POST', connectUrl, {
      returnTo: `${location.pathname}${location.search}`,
    }).then(({ authorizationUrl }) => location.assign(authorizationUrl), setError);
  };
  return (
    <div class="app-connects">
      {asked.map((app) => {
        const name = appNames.get(app.appId) ?? app.appId;
        return (
          <p key={app.appId}>
            {t('chatAppConnectNeeded', { name })}{' '}
            <button type="button" class="primary" onClick={() => connect(app)}>
              {t('appOAuthConnect', { name })}
            </button>
          </p>
        );
      })}
      {error !== null && <AppError failure={error} />}
    </div>
  );
}
