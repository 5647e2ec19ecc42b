// Registering an App: a URL the platform reaches, a container image it runs (and the port the App listens on), or an
// MCP server (its URL and, optionally, a bearer token the platform sends it: a password field, never shown again).
// The API reads the App's `/meta` (an MCP server's offer) before it answers, and gives the App's bearer token once.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import { AppError } from './app-error';
import { SOURCE_LABELS, type App } from './app-types';

type Kind = App['source']['type'];

// Over 100 lines on purpose: one form whose fields follow the kind of App chosen (URL, container, MCP server).
export function AppRegister({ onRegistered }: { onRegistered: (app: App, token: string | null) => void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<Kind>('url');
  const [url, setUrl] = useState('');
  const [bearer, setBearer] = useState('');
  const [oauth, setOauth] = useState(false);
  const [image, setImage] = useState('');
  const [port, setPort] = useState('8080');
  const [error, setError] = useState<unknown>(null);
  const [sending, setSending] = useState(false);
  const register = async (event: Event) => {
    event.preventDefault();
    setError(null);
    const source =
      type === 'url'
        ? { type, url }
        : type === 'mcp'
          ? {
              type,
              url,
              auth: oauth ? { type: 'oauth' } : bearer ? { type: 'bearer', token: bearer } : { type: 'none' },
            }
          : { type, image, port: Number(port) };
    setSending(true);
    try {
      const app = await api<App & { token: string | null }>('POST', 'apps', { name, source });
      setName('');
      setUrl('');
      setBearer('');
      setImage('');
      onRegistered(app, app.token);
    } catch (failure) {
      setError(failure);
    } finally {
      setSending(false);
    }
  };
  return (
    <form class="app-register" aria-labelledby="app-register-title" onSubmit={(e) => void register(e)}>
      <h2 id="app-register-title">{t('appRegister')}</h2>
      <label>
        {t('name')}
        <input value={name} required onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </label>
      <fieldset>
        <legend>{t('appSource')}</legend>
        {(['url', 'container', 'mcp'] as const).map((kind) => (
          <label key={kind}>
            <input type="radio" name="app-source" checked={type === kind} onChange={() => setType(kind)} />
            {t(SOURCE_LABELS[kind])}
          </label>
        ))}
      </fieldset>
      {type !== 'container' ? (
        <>
          <label>
            {t(type === 'mcp' ? 'appMcpUrl' : 'appUrl')}
            <input
              type="url"
              value={url}
              required
              onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
            />
          </label>
          {type === 'mcp' && (
            <label class="check">
              <input
                type="checkbox"
                checked={oauth}
                onChange={(e) => setOauth((e.target as HTMLInputElement).checked)}
              />
              {t('appMcpOAuthChoice')}
            </label>
          )}
          {type === 'mcp' && !oauth && (
            <>
              <label>
                {t('appMcpBearer')}
                <input
                  type="password"
                  value={bearer}
                  autocomplete="off"
                  aria-describedby="app-bearer-note"
                  onInput={(e) => setBearer((e.target as HTMLInputElement).value)}
                />
              </label>
              <p id="app-bearer-note" class="note">
                {t('appMcpBearerNote')}
              </p>
            </>
          )}
        </>
      ) : (
        <>
          <label>
            {t('appImage')}
            <input value={image} required onInput={(e) => setImage((e.target as HTMLInputElement).value)} />
          </label>
          <label>
            {t('appPort')}
            <input
              type="number"
              min="1"
              max="65535"
              value={port}
              required
              onInput={(e) => setPort((e.target as HTMLInputElement).value)}
            />
          </label>
        </>
      )}
      {error !== null && <AppError failure={error} />}
      <button type="submit" disabled={sending}>
        {t('appRegisterSubmit')}
      </button>
    </form>
  );
}
