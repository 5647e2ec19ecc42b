// A Space's members and their roles (`/space/{spaceId}/members`): everyone with a role sees the list; who may add,
// change and remove is the API's policy (`space.member.change`), mirrored here so the page offers only what it
// allows: an editor or owner changes members up to their own role, an admin any member of a shared Space, nobody
// their own role; everyone may leave, except the last owner. A refusal still comes back as a clear message. Who may
// add finds the person by name or e-mail (add-member.tsx); the list names every member.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api';
import { t } from '../../i18n';
import { linkTo } from '../../router';
import type { List, Me, Space } from '../../state';
import { AddMember } from './add-member';
import { MemberRow } from './member-row';
import { rank, refusal, ROLES, type Member, type Role } from './roles';

function Gone({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="page" aria-labelledby="members-title">
      <h1 id="members-title">{title}</h1>
      {children}
    </section>
  );
}

// Over 100 lines on purpose: the members table and its changes share the one list and the person's role.
export function Members({ spaceId, me }: { spaceId: string; me: Me }) {
  const [space, setSpace] = useState<Space | null>(null);
  const [missing, setMissing] = useState(false);
  const [members, setMembers] = useState<Member[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [left, setLeft] = useState(false);
  const path = `spaces/${encodeURIComponent(spaceId)}`;

  const load = () =>
    api<List<Member>>('GET', `${path}/members?limit=200`).then(
      (page) => setMembers(page.data),
      (e: unknown) => (e instanceof ApiError && e.status === 404 ? setMissing(true) : setError(refusal(e))),
    );
  useEffect(() => {
    void api<Space>('GET', path).then(setSpace, () => setMissing(true));
    void load();
  }, [spaceId]);

  const own = members.find((m) => m.userId === me.id)?.role ?? null;
  const personal = Boolean(space?.isPersonal);
  const owners = members.filter((m) => m.role === 'owner').length;
  /** The highest role the person may grant (null: they change no member). */
  const ceiling: Role | null = personal
    ? null
    : me.role === 'admin'
      ? 'owner'
      : rank(own) >= rank('editor')
        ? own
        : null;
  const mayChange = (member: Member) =>
    ceiling !== null && member.userId !== me.id && rank(member.role) <= rank(ceiling);
  const grantable = ceiling === null ? [] : ROLES.filter((r) => rank(r) <= rank(ceiling));
  const userName = (userId: string) => {
    if (userId === me.id) return `${me.name || me.email} (${t('you')})`;
    return members.find((m) => m.userId === userId)?.name || userId;
  };

  /** Does `work`, says `done` or the refusal, reloads the list; true when it was done. */
  const act = async (work: () => Promise<unknown>, done: string): Promise<boolean> => {
    setError(null);
    setNotice(null);
    let ok = false;
    try {
      await work();
      ok = true;
      setNotice(done);
    } catch (failure) {
      setError(refusal(failure));
    }
    await load();
    return ok;
  };
  const member = (userId: string) => `${path}/members/${encodeURIComponent(userId)}`;
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
      <Gone title={t('notFound')}>
        <p>{t('notFoundText')}</p>
      </Gone>
    );
  if (left)
    return (
      <Gone title={t('members')}>
        <p role="status">{t('leftSpace', { name: space?.name ?? spaceId })}</p>
        <a href="/" onClick={linkTo('/')}>
          {t('back')}
        </a>
      </Gone>
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
            <MemberRow
              key={m.userId}
              member={m}
              name={userName(m.userId)}
              own={m.userId === me.id}
              changeable={mayChange(m)}
              lastOwner={m.role === 'owner' && owners <= 1}
              personal={personal}
              grantable={grantable}
              onRole={(role) => void act(() => api('PATCH', member(m.userId), { role }), t('roleChanged'))}
              onRemove={() => void act(() => api('DELETE', member(m.userId)), t('memberRemoved'))}
              onLeave={() => void leave()}
            />
          ))}
        </tbody>
      </table>
      {ceiling !== null && (
        <AddMember
          spaceId={spaceId}
          grantable={grantable}
          onAdd={(userId, role) =>
            act(() => api('POST', `${path}/members`, { userId, role }), t('memberAdded'))
          }
          onError={setError}
        />
      )}
    </section>
  );
}
