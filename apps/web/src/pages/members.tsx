// A Space's members and their roles (`/space/{spaceId}/members`): everyone with a role sees the list; who may add,
// change and remove is the API's policy (`space.member.change`), mirrored here so the page offers only what it
// allows: an editor or owner changes members up to their own role, an admin any member of a shared Space, nobody
// their own role; everyone may leave, except the last owner. A refusal still comes back as a clear message. Who may
// add finds the person by name or e-mail (`GET …/member-candidates`, the same policy); the list names every member.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { errorSentence } from '../errors';
import { t, type Label } from '../i18n';
import { linkTo } from '../router';
import type { List, Me, Space } from '../state';

type Role = 'member' | 'editor' | 'owner';
const ROLES: readonly Role[] = ['member', 'editor', 'owner'];
const rank = (role: Role | null): number => (role === null ? -1 : ROLES.indexOf(role));

interface Member {
  readonly userId: string;
  readonly name?: string | null;
  readonly role: Role;
  readonly addedAt: string;
}
interface Candidate {
  readonly id: string;
  readonly email: string;
  readonly name: string;
}
type SpaceWithFlag = Space & { readonly isPersonal?: boolean };

/** The API's refusals of a membership change, in the person's language (else the API's own message). */
const REFUSALS: Readonly<Record<string, Label>> = {
  last_owner: 'refusedLastOwner',
  own_role_change_denied: 'refusedOwnRole',
  role_above_own: 'refusedRoleAboveOwn',
  space_member_change_denied: 'refusedMemberChange',
  space_member_exists: 'refusedMemberExists',
  unknown_user: 'refusedUnknownUser',
  personal_space_unshareable: 'refusedPersonalSpace',
};

export const refusal = (error: unknown): string => errorSentence(error, REFUSALS);

const roleLabel = (role: Role): string => t(`role_${role}`);

// Over 100 lines on purpose: one page component: members, roles and invitations share the Space's loaded
// state.
export function Members({ spaceId, me }: { spaceId: string; me: Me }) {
  const [space, setSpace] = useState<SpaceWithFlag | null>(null);
  const [missing, setMissing] = useState(false);
  const [members, setMembers] = useState<Member[]>([]);
  const [search, setSearch] = useState('');
  const [candidates, setCandidates] = useState<Candidate[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [newUser, setNewUser] = useState('');
  const [newRole, setNewRole] = useState<Role>('member');
  const [left, setLeft] = useState(false);

  const load = () =>
    api<List<Member>>('GET', `spaces/${encodeURIComponent(spaceId)}/members?limit=200`).then(
      (page) => setMembers(page.data),
      (e: unknown) => (e instanceof ApiError && e.status === 404 ? setMissing(true) : setError(refusal(e))),
    );
  useEffect(() => {
    void api<SpaceWithFlag>('GET', `spaces/${encodeURIComponent(spaceId)}`).then(setSpace, () =>
      setMissing(true),
    );
    void load();
  }, [spaceId]);
  // The people matching what was typed (two characters at least); an answer to an older query is dropped.
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
      (e: unknown) => current && setError(refusal(e)),
    );
    return () => {
      current = false;
    };
  }, [spaceId, search]);

  const admin = me.role === 'admin';
  const own = members.find((m) => m.userId === me.id)?.role ?? null;
  const personal = Boolean(space?.isPersonal);
  const owners = members.filter((m) => m.role === 'owner').length;
  /** The highest role the person may grant (null: they change no member). */
  const ceiling: Role | null = personal ? null : admin ? 'owner' : rank(own) >= rank('editor') ? own : null;
  const mayChange = (member: Member) =>
    ceiling !== null && member.userId !== me.id && rank(member.role) <= rank(ceiling);
  const grantable = ceiling === null ? [] : ROLES.filter((r) => rank(r) <= rank(ceiling));
  const userName = (userId: string) => {
    if (userId === me.id) return `${me.name || me.email} (${t('you')})`;
    return members.find((m) => m.userId === userId)?.name || userId;
  };

  const act = async (work: () => Promise<unknown>, done: string) => {
    setError(null);
    setNotice(null);
    try {
      await work();
      setNotice(done);
    } catch (failure) {
      setError(refusal(failure));
    }
    await load();
  };
  const path = `spaces/${encodeURIComponent(spaceId)}`;
  const add = (event: Event) => {
    event.preventDefault();
    const userId = newUser.trim();
    if (!userId) return;
    void act(async () => {
      await api('POST', `${path}/members`, { userId, role: newRole });
      setNewUser('');
      setSearch('');
    }, t('memberAdded'));
  };
  const leave = async () => {
    setError(null);
    try {
      await api('POST', `${path}/leave`);
      setLeft(true);
    } catch (failure) {
      setError(refusal(failure));
    }
  };

  if (missing)
    return (
      <section class="page" aria-labelledby="members-title">
        <h1 id="members-title">{t('notFound')}</h1>
        <p>{t('notFoundText')}</p>
      </section>
    );
  if (left)
    return (
      <section class="page" aria-labelledby="members-title">
        <h1 id="members-title">{t('members')}</h1>
        <p role="status">{t('leftSpace', { name: space?.name ?? spaceId })}</p>
        <a href="/" onClick={linkTo('/')}>
          {t('back')}
        </a>
      </section>
    );
  return (
    <section class="page" aria-labelledby="members-title">
      <h1 id="members-title">
        {t('members')}
        {space ? `: ${space.name}` : ''}
      </h1>
      <p>
        <a href={`/space/${spaceId}/prompts`} onClick={linkTo(`/space/${spaceId}/prompts`)}>
          {t('promptLibrary')}
        </a>
      </p>
      {personal && <p class="note">{t('personalSpaceMembers')}</p>}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {notice && (
        <p role="status" class="note">
          {notice}
        </p>
      )}
      <table class="members">
        <thead>
          <tr>
            <th scope="col">{t('member')}</th>
            <th scope="col">{t('role')}</th>
            <th scope="col">
              <span class="visually-hidden">{t('actionsLabel')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {members.map((m) => (
            <tr key={m.userId} data-user={m.userId}>
              <td>{userName(m.userId)}</td>
              <td>
                {mayChange(m) && !(m.role === 'owner' && owners <= 1) ? (
                  <label>
                    <span class="visually-hidden">{t('roleOf', { name: userName(m.userId) })}</span>
                    <select
                      value={m.role}
                      onChange={(e) => {
                        const role = (e.target as HTMLSelectElement).value as Role;
                        void act(
                          () => api('PATCH', `${path}/members/${encodeURIComponent(m.userId)}`, { role }),
                          t('roleChanged'),
                        );
                      }}
                    >
                      {grantable.map((r) => (
                        <option key={r} value={r}>
                          {roleLabel(r)}
                        </option>
                      ))}
                    </select>
                  </label>
                ) : (
                  roleLabel(m.role)
                )}
              </td>
              <td>
                {m.userId === me.id
                  ? !personal &&
                    !(m.role === 'owner' && owners <= 1) && (
                      <button type="button" onClick={() => void leave()}>
                        {t('leaveSpace')}
                      </button>
                    )
                  : mayChange(m) &&
                    !(m.role === 'owner' && owners <= 1) && (
                      <button
                        type="button"
                        aria-label={t('removeMember', { name: userName(m.userId) })}
                        onClick={() =>
                          void act(
                            () => api('DELETE', `${path}/members/${encodeURIComponent(m.userId)}`),
                            t('memberRemoved'),
                          )
                        }
                      >
                        {t('remove')}
                      </button>
                    )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {ceiling !== null && (
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
            <select
              required
              value={newUser}
              onChange={(e) => setNewUser((e.target as HTMLSelectElement).value)}
            >
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
            <select
              value={newRole}
              onChange={(e) => setNewRole((e.target as HTMLSelectElement).value as Role)}
            >
              {grantable.map((r) => (
                <option key={r} value={r}>
                  {roleLabel(r)}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">{t('addMember')}</button>
        </form>
      )}
    </section>
  );
}
