// Registering an App: a URL the platform reaches, or a container image it runs (and the port the App listens on).
// The API reads the App's `/meta` before it answers, and gives its bearer token once.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { errorSentence } from '../../errors';
import { t } from '../../i18n';
import type { App } from './app-types';

const APP_REFUSALS = { invalid_field: 'appInvalid', missing_field: 'appInvalid' } as const;

export function AppRegister({ onRegistered }: { onRegistered: (app: App, token: string | null) => void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<'url' | 'container'>('url');
  const [url, setUrl] = useState('');
  const [image, setImage] = useState('');
  const [port, setPort] = useState('8080');
  const [error, setError] = useState<string | null>(null);
  const register = async (event: Event) => {
    event.preventDefault();
    setError(null);
    const source = type === 'url' ? { type, url } : { type, image, port: Number(port) };
    try {
      const app = await api<App & { token: string | null }>('POST', 'apps', { name, source });
      setName('');
      setUrl('');
      setImage('');
      onRegistered(app, app.token);
    } catch (failure) {
      setError(errorSentence(failure, APP_REFUSALS));
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
        <label>
          <input type="radio" name="app-source" checked={type === 'url'} onChange={() => setType('url')} />
          {t('appSourceUrl')}
        </label>
        <label>
          <input
            type="radio"
            name="app-source"
            checked={type === 'container'}
            onChange={() => setType('container')}
          />
          {t('appSourceContainer')}
        </label>
      </fieldset>
      {type === 'url' ? (
        <label>
          {t('appUrl')}
          <input
            type="url"
            value={url}
            required
            onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
          />
        </label>
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
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit">{t('appRegisterSubmit')}</button>
    </form>
  );
}
