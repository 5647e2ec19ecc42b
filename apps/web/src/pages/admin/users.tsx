// Admins see every user: change the instance role, deactivate (after a confirmation) and reactivate, send a password
// reset (its link also shown once). One's own row is read-only, with the reason: another admin changes it.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { t, type Label } from '../../i18n';
import type { Me } from '../../state';
import { ConfirmDialog } from '../confirm-dialog';
import { OutcomeLine, useOutcome } from '../people/outcome';
import { SecretOnce } from './secret';

export interface User {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: 'admin' | 'member';
  readonly status?: 'active' | 'deactivated';
}

function UserRow({
  user,
  me,
  act,
  onDeactivate,
}: {
  user: User;
  me: Me;
  act: (work: Promise<unknown>) => void;
  onDeactivate: () => void;
}) {
  const status = user.status ?? 'active';
  const self = user.id === me.id;
  const toggle = status === 'deactivated' ? 'reactivate' : 'deactivate';
  return (
    <tr>
      <td>{user.name}</td>
      <td class="email">{user.email}</td>
      <td>
        <select
          aria-label={`${t('role')} ${user.email}`}
          value={user.role}
          disabled={self}
          aria-describedby={self ? 'self-note' : undefined}
          onChange={(e) =>
            act(api('PATCH', `users/${user.id}`, { role: (e.target as HTMLSelectElement).value }))
          }
        >
          <option value="member">{t('instanceRole_member')}</option>
          <option value="admin">{t('instanceRole_admin')}</option>
        </select>
      </td>
      <td>{t(`userStatus_${status}` as Label)}</td>
      <td>
        <div class="actions">
          {self ? (
            <span class="note">{t('youAreThis')}</span>
          ) : (
            <button
              type="button"
              aria-label={t(toggle === 'deactivate' ? 'deactivateUser' : 'reactivateUser', {
                email: user.email,
              })}
              onClick={() =>
                toggle === 'deactivate' ? onDeactivate() : act(api('POST', `users/${user.id}/reactivate`))
              }
            >
              {t(toggle)}
            </button>
          )}
          <button
            type="button"
            aria-label={t('sendResetTo', { email: user.email })}
            onClick={() =>
              act(api('POST', `users/${user.id}/password-reset`).then((r) => ({ reset: r, user })))
            }
          >
            {t('sendReset')}
          </button>
        </div>
      </td>
    </tr>
  );
}

export function Users({ users, me, onChanged }: { users: User[]; me: Me; onChanged: () => void }) {
  const { outcome, run } = useOutcome();
  const [reset, setReset] = useState<{ email: string; link: string } | null>(null);
  const [deactivating, setDeactivating] = useState<User | null>(null);
  const act = (work: Promise<unknown>) => {
    setReset(null);
    void run(work).then((result) => {
      const sent = result as { reset?: { link?: string }; user?: User } | undefined;
      if (sent?.reset?.link && sent.user) setReset({ email: sent.user.email, link: sent.reset.link });
      onChanged();
    });
  };
  return (
    <>
      <OutcomeLine outcome={outcome} />
      {reset && <SecretOnce label={t('resetSent', { email: reset.email })} secret={reset.link} />}
      <div class="table-scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">{t('name')}</th>
              <th scope="col">{t('email')}</th>
              <th scope="col">{t('role')}</th>
              <th scope="col">{t('status')}</th>
              <th scope="col">{t('actionsLabel')}</th>
            </tr>
          </thead>
          <tbody>
            {users.map((user) => (
              <UserRow
                key={user.id}
                user={user}
                me={me}
                act={act}
                onDeactivate={() => setDeactivating(user)}
              />
            ))}
          </tbody>
        </table>
      </div>
      <p id="self-note" class="visually-hidden">
        {t('youAreThis')}
      </p>
      {deactivating && (
        <ConfirmDialog
          title={t('deactivateQuestion', { email: deactivating.email })}
          text={t('deactivateText')}
          confirm={t('deactivate')}
          onConfirm={() => act(api('POST', `users/${deactivating.id}/deactivate`))}
          onClose={() => setDeactivating(null)}
        />
      )}
    </>
  );
}
