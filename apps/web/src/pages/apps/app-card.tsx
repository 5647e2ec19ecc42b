// One registered App: where it comes from, what its `/meta` said (views and tools) or an MCP server's offer, or why it
// could not be read, where the platform serves it, and what an admin does with it (read it again, a new token, the
// Agents it is enabled for, delete).
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import type { Agent } from '../../state';
import { ConfirmDialog } from '../confirm-dialog';
import { AppEnablement } from './app-enablement';
import { AppError } from './app-error';
import { AppOAuthConnection } from './app-oauth-connection';
import { MCP_AUTH_LABELS, SOURCE_LABELS, type App } from './app-types';
import { McpOfferView } from './mcp-offer';
import { SecretOnce } from './secret-once';
import { UrlAppOffer } from './url-app-offer';

interface Props {
  readonly app: App;
  readonly agents: readonly Agent[];
  readonly onChanged: () => void;
}

export function AppCard({ app, agents, onChanged }: Props) {
  const [token, setToken] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const act = (change: Promise<unknown>) => {
    setError(null);
    void change.then(onChanged, setError);
  };
  const rotate = () =>
    void api<{ token: string }>('POST', `apps/${app.id}/token`).then(
      (answer) => setToken(answer.token),
      setError,
    );
  const source = app.source.type === 'container' ? `${app.source.image} :${app.source.port}` : app.source.url;
  return (
    <li class="app-card">
      <h3>{app.name}</h3>
      <p>
        {t(SOURCE_LABELS[app.source.type])}: <code>{source}</code>
        {app.source.type === 'mcp' && <> · {t(MCP_AUTH_LABELS[app.source.auth])}</>}
      </p>
      {app.source.type === 'mcp' && app.source.auth === 'oauth' && (
        <AppOAuthConnection app={app} onChanged={onChanged} />
      )}
      <p>
        {t('appServedAt')} <a href={app.proxyPath}>{app.proxyPath}</a>
      </p>
      {app.mcp && <McpOfferView appName={app.name} offer={app.mcp} />}
      {app.meta && !app.lastError && <UrlAppOffer appName={app.name} meta={app.meta} />}
      {app.lastError ? (
        <p class="error">{t('appLastError', { error: app.lastError })}</p>
      ) : (
        app.meta && (
          <p class="note">
            {t('appMeta', {
              views: app.meta.views.map((view) => view.title).join(', ') || '—',
              tools: app.meta.tools.map((tool) => tool.name).join(', ') || '—',
            })}
          </p>
        )
      )}
      {token && (
        <SecretOnce
          label={t('appTokenOnce', { name: app.name })}
          secret={token}
          onDone={() => setToken(null)}
        />
      )}
      {error !== null && <AppError failure={error} />}
      <AppEnablement
        appName={app.name}
        value={app.enablement}
        agents={agents}
        onSave={(enablement) => act(api('PATCH', `apps/${app.id}`, { enablement }))}
      />
      <div class="actions">
        <button type="button" onClick={() => act(api('POST', `apps/${app.id}/refresh`))}>
          {t(app.source.type === 'mcp' ? 'appMcpRefresh' : 'appRefresh', { name: app.name })}
        </button>{' '}
        <button type="button" onClick={rotate}>
          {t('appRotate', { name: app.name })}
        </button>{' '}
        <button type="button" class="danger" onClick={() => setDeleting(true)}>
          {t('appDelete', { name: app.name })}
        </button>
      </div>
      {deleting && (
        <ConfirmDialog
          title={t('appDeleteTitle', { name: app.name })}
          text={t('appDeleteText')}
          confirm={t('appDelete', { name: app.name })}
          onConfirm={() => act(api('DELETE', `apps/${app.id}`))}
          onClose={() => setDeleting(false)}
        />
      )}
    </li>
  );
}
