// For admins: the users (role, deactivate/reactivate) and invitations (invite, revoke; the link is shown once).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { errorSentence } from '../errors';
import { t } from '../i18n';
import type { List } from '../state';

interface User {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: 'admin' | 'member';
  readonly status?: 'active' | 'deactivated';
}
interface Invitation {
  readonly id: string;
  readonly email: string;
  readonly role: string;
  readonly status?: string;
  readonly link?: string;
}

// Over 100 lines on purpose: one page component whose sections share the admin's loaded state.
export function Admin() {
  const [users, setUsers] = useState<User[]>([]);
  const [invitations, setInvitations] = useState<Invitation[]>([]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [link, setLink] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => {
    void api<List<User>>('GET', 'users?limit=200').then(
      (l) => setUsers(l.data),
      (e: unknown) => setError(errorSentence(e)),
    );
    void api<List<Invitation>>('GET', 'invitations?limit=200').then(
      (l) => setInvitations(l.data),
      () => undefined,
    );
  };
  useEffect(load, []);
  const act = (promise: Promise<unknown>) =>
    void promise.then(load, (e: unknown) => {
      setError(errorSentence(e));
      load();
    });
  const invite = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const created = await api<Invitation>('POST', 'invitations', { email, role });
      setLink(created.link ?? null);
      setEmail('');
      load();
    } catch (failure) {
      setError(errorSentence(failure));
    }
  };
  return (
    <section class="page" aria-labelledby="admin-title">
      <h1 id="admin-title">{t('admin')}</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <h2>{t('invitations')}</h2>
      <form onSubmit={(e) => void invite(e)}>
        <label>
          {t('email')}
          <input
            type="email"
            required
            value={email}
            onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          {t('role')}
          <select
            value={role}
            onChange={(e) => setRole((e.target as HTMLSelectElement).value as 'member' | 'admin')}
          >
            <option value="member">member</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <button type="submit">{t('invite')}</button>
      </form>
      {link && (
        <p role="status" class="secret">
          {t('invitationLink')} <code>{link}</code>
        </p>
      )}
      <ul>
        {invitations.map((i) => (
          <li key={i.id}>
            {i.email} ({i.role}
            {i.status ? `, ${i.status}` : ''}){' '}
            <button type="button" onClick={() => act(api('DELETE', `invitations/${i.id}`))}>
              {t('revoke')} {i.email}
            </button>
          </li>
        ))}
      </ul>
      <h2>{t('users')}</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('name')}</th>
            <th scope="col">{t('email')}</th>
            <th scope="col">{t('role')}</th>
            <th scope="col">{t('status')}</th>
          </tr>
        </thead>
        <tbody>
          {users.map((u) => (
            <tr key={u.id}>
              <td>{u.name}</td>
              <td>{u.email}</td>
              <td>
                <select
                  aria-label={`${t('role')} ${u.email}`}
                  value={u.role}
                  onChange={(e) =>
                    act(api('PATCH', `users/${u.id}`, { role: (e.target as HTMLSelectElement).value }))
                  }
                >
                  <option value="member">member</option>
                  <option value="admin">admin</option>
                </select>
              </td>
              <td>
                {u.status ?? 'active'}{' '}
                <button
                  type="button"
                  onClick={() =>
                    act(
                      api(
                        'POST',
                        `users/${u.id}/${u.status === 'deactivated' ? 'reactivate' : 'deactivate'}`,
                      ),
                    )
                  }
                >
                  {u.status === 'deactivated' ? t('reactivate') : t('deactivate')} {u.email}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
