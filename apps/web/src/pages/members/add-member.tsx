// Adding a member: find the person by name or e-mail (`GET …/member-candidates`, two characters at least; an answer
// to an older query is dropped), choose them and the role (up to the adder's own).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import { RoleOptions } from './role-options';
import { refusal, type Role } from './roles';

interface Candidate {
  readonly id: string;
  readonly email: string;
  readonly name: string;
}

export function AddMember({
  spaceId,
  grantable,
  onAdd,
  onError,
}: {
  spaceId: string;
  grantable: readonly Role[];
  /** Adds the member; resolves true when added (the form is then cleared). */
  onAdd: (userId: string, role: Role) => Promise<boolean>;
  onError: (sentence: string) => void;
}) {
  const [search, setSearch] = useState('');
  const [candidates, setCandidates] = useState<Candidate[] | null>(null);
  const [newUser, setNewUser] = useState('');
  const [newRole, setNewRole] = useState<Role>('member');
  useEffect(() => {
    const query = search.trim();
    setCandidates(null);
    if (query.length < 2) return;
    let current = true;
    void api<{ data: Candidate[] }>(
      'GET',
      `spaces/${encodeURIComponent(spaceId)}/member-candidates?query=${encodeURIComponent(query)}`,
    ).then(
      (found) => current && setCandidates(found.data),
      (e: unknown) => current && onError(refusal(e)),
    );
    return () => {
      current = false;
    };
  }, [spaceId, search]);
  const add = (event: Event) => {
    event.preventDefault();
    const userId = newUser.trim();
    if (!userId) return;
    void onAdd(userId, newRole).then((added) => {
      if (!added) return;
      setNewUser('');
      setSearch('');
    });
  };
  return (
    <form class="add-member" onSubmit={add}>
      <h2>{t('addMember')}</h2>
      <label>
        {t('findPerson')}
        <input
          type="search"
          value={search}
          autocomplete="off"
          aria-describedby="find-person-hint"
          onInput={(e) => {
            setSearch((e.target as HTMLInputElement).value);
            setNewUser('');
          }}
        />
      </label>
      <p id="find-person-hint" class="note" aria-live="polite">
        {candidates === null ? t('findPersonHint') : candidates.length === 0 ? t('noCandidates') : ''}
      </p>
      <label>
        {t('user')}
        <select required value={newUser} onChange={(e) => setNewUser((e.target as HTMLSelectElement).value)}>
          <option value="">{t('chooseUser')}</option>
          {(candidates ?? []).map((u) => (
            <option key={u.id} value={u.id}>
              {u.name} &lt;{u.email}&gt;
            </option>
          ))}
        </select>
      </label>
      <p class="note">{t('invitedNote')}</p>
      <label>
        {t('role')}
        <select value={newRole} onChange={(e) => setNewRole((e.target as HTMLSelectElement).value as Role)}>
          <RoleOptions roles={grantable} />
        </select>
      </label>
      <button type="submit">{t('addMember')}</button>
    </form>
  );
}
