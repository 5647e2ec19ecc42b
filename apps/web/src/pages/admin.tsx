// For admins: users and invitations, every API key, who may create Spaces, and the sign-in providers. The sections
// live in pages/admin/; this page loads what several of them share (the users) and lays them out.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { t } from '../i18n';
import type { List, Me } from '../state';
import { ApiKeys } from './admin/api-keys';
import { SignInProviders, SpaceCreation } from './admin/instance';
import { Invitations, type Invitation } from './admin/invitations';
import { Users, type User } from './admin/users';
import { OutcomeLine, useOutcome } from './people/outcome';

export function Admin({ me }: { me: Me }) {
  const [users, setUsers] = useState<User[]>([]);
  const [invitations, setInvitations] = useState<Invitation[]>([]);
  const { outcome, read } = useOutcome();
  const load = () => {
    void read(api<List<User>>('GET', 'users?limit=200')).then((l) => l && setUsers(l.data));
    void read(api<List<Invitation>>('GET', 'invitations?limit=200')).then((l) => l && setInvitations(l.data));
  };
  useEffect(load, []);
  return (
    <section class="page people" aria-labelledby="admin-title">
      <h1 id="admin-title">{t('administration')}</h1>
      <OutcomeLine outcome={outcome} />
      <h2>{t('invitations')}</h2>
      <Invitations invitations={invitations} onChanged={load} />
      <h2>{t('users')}</h2>
      <Users users={users} me={me} onChanged={load} />
      <h2>{t('allApiKeys')}</h2>
      <ApiKeys users={users} />
      <h2>{t('spaceCreation')}</h2>
      <SpaceCreation />
      <h2>{t('ssoProviders')}</h2>
      <SignInProviders />
    </section>
  );
}
