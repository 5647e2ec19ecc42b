// An MCP App that signs in each person (OAuth): whether the admin's own account is connected, and the button that
// connects it (the browser goes to the authorization server and comes back to this page) or disconnects it (the
// tokens erased). Until someone connects, the server's tools are unknown: the page says so.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import { AppError } from './app-error';
import type { App } from './app-types';

interface Connection {
  readonly connected: boolean;
  readonly connectedAt: string | null;
}

export function AppOAuthConnection({ app, onChanged }: { app: App; onChanged: () => void }) {
  const [connection, setConnection] = useState<Connection | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () =>
    void api<Connection>('GET', `apps/${app.id}/oauth/connection`).then(setConnection, setError);
  useEffect(load, [app.id]);
  const connect = () => {
    setError(null);
    void api<{ authorizationUrl: string }>('POST', `apps/${app.id}/oauth/connect`, {
      returnTo: location.pathname,
    }).then(({ authorizationUrl }) => location.assign(authorizationUrl), setError);
  };
  const disconnect = () => {
    setError(null);
    void api('DELETE', `apps/${app.id}/oauth/connection`).then(() => (load(), onChanged()), setError);
  };
  return (
    <div class="app-oauth">
      {!app.mcp && <p class="note">{t('appOAuthNoOffer')}</p>}
      {connection && (
        <p>
          <span class={`app-oauth-status${connection.connected ? ' connected' : ''}`}>
            {t(connection.connected ? 'appOAuthConnected' : 'appOAuthNotConnected')}
          </span>{' '}
          {connection.connected ? (
            <button type="button" onClick={disconnect}>
              {t('appOAuthDisconnect', { name: app.name })}
            </button>
          ) : (
            <button type="button" class="primary" onClick={connect}>
              {t('appOAuthConnect', { name: app.name })}
            </button>
          )}
        </p>
      )}
      {error !== null && <AppError failure={error} />}
    </div>
  );
}
