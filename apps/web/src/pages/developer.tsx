// Developer Settings: one's own API keys (the secret shown once, on creation), revoke (after a confirmation).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { dateTime } from '../dates';
import { errorSentence } from '../errors';
import { t } from '../i18n';
import type { List } from '../state';
import { ConfirmDialog } from './confirm-dialog';

interface Key {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly revokedAt?: string | null;
}

export function Developer() {
  const [keys, setKeys] = useState<Key[]>([]);
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const load = () =>
    api<List<Key>>('GET', 'me/api-keys').then(
      (l) => setKeys(l.data),
      () => undefined,
    );
  useEffect(() => void load(), []);
  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const issued = await api<{ key: string }>('POST', 'me/api-keys', {
        name,
        agents: 'all',
        usageLimit: { costUsd: 10, window: 'month' },
      });
      setSecret(issued.key);
      setName('');
      void load();
    } catch (failure) {
      setError(errorSentence(failure));
    }
  };
  return (
    <section class="page" aria-labelledby="dev-title">
      <h1 id="dev-title">{t('developer')}</h1>
      <h2>{t('apiKeys')}</h2>
      <form onSubmit={(e) => void create(e)}>
        <label>
          {t('keyName')}
          <input required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">{t('createKey')}</button>
      </form>
      {secret && (
        <p role="status" class="secret">
          {t('keyShownOnce')} <code>{secret}</code>
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <table>
        <thead>
          <tr>
            <th scope="col">{t('name')}</th>
            <th scope="col">{t('created')}</th>
            <th scope="col">
              <span class="visually-hidden">{t('revoke')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td>{dateTime(k.createdAt)}</td>
              <td>
                {!k.revokedAt && (
                  <button type="button" aria-haspopup="dialog" onClick={() => setRevoking(k)}>
                    {t('revoke')} {k.name}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {revoking && (
        <ConfirmDialog
          title={t('revokeKeyQuestion', { name: revoking.name })}
          text={t('revokeKeyText')}
          confirm={t('revoke')}
          onConfirm={() =>
            void api('DELETE', `me/api-keys/${revoking.id}`).then(load, (e: unknown) => {
              setError(errorSentence(e));
              void load();
            })
          }
          onClose={() => setRevoking(null)}
        />
      )}
    </section>
  );
}
