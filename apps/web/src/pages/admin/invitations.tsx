// Admins invite people (email, instance role), resend an invitation (a new link; the old one is withdrawn) and
// revoke one; each new link is shown once.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { t, type Label } from '../../i18n';
import { OutcomeLine, useOutcome } from '../people/outcome';
import { SecretOnce } from './secret';

export interface Invitation {
  readonly id: string;
  readonly email: string;
  readonly role: 'admin' | 'member';
  readonly status: 'pending' | 'accepted' | 'revoked';
  readonly link?: string | null;
}

export function Invitations({
  invitations,
  onChanged,
}: {
  invitations: Invitation[];
  onChanged: () => void;
}) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [link, setLink] = useState<string | null>(null);
  const { outcome, run } = useOutcome();
  const issue = async (to: string, as: 'member' | 'admin') => {
    const created = await run(api<Invitation>('POST', 'invitations', { email: to, role: as }));
    if (created) setLink(created.link ?? null);
    onChanged();
    return created;
  };
  const invite = async (event: Event) => {
    event.preventDefault();
    if (await issue(email, role)) setEmail('');
  };
  const resend = async (invitation: Invitation) => {
    if (await run(api('DELETE', `invitations/${invitation.id}`)))
      await issue(invitation.email, invitation.role);
  };
  const revoke = async (invitation: Invitation) => {
    setLink(null);
    await run(api('DELETE', `invitations/${invitation.id}`));
    onChanged();
  };
  const pending = invitations.filter((invitation) => invitation.status === 'pending');
  return (
    <>
      <form class="inline-form" onSubmit={(e) => void invite(e)}>
        <label>
          {t('email')}
          <input
            type="email"
            name="invite-email"
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
            <option value="member">{t('instanceRole_member')}</option>
            <option value="admin">{t('instanceRole_admin')}</option>
          </select>
        </label>
        <button type="submit">{t('invite')}</button>
      </form>
      <OutcomeLine outcome={outcome} />
      {link && <SecretOnce label={t('invitationLink')} secret={link} />}
      <ul class="rows">
        {pending.map((invitation) => (
          <li key={invitation.id}>
            <span>
              {invitation.email} · {t(`instanceRole_${invitation.role}` as Label)} ·{' '}
              {t(`invitationStatus_${invitation.status}` as Label)}
            </span>
            <span class="actions">
              <button
                type="button"
                aria-label={t('resendTo', { email: invitation.email })}
                onClick={() => void resend(invitation)}
              >
                {t('resend')}
              </button>
              <button
                type="button"
                aria-label={t('revokeInvitationOf', { email: invitation.email })}
                onClick={() => void revoke(invitation)}
              >
                {t('revoke')}
              </button>
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}
