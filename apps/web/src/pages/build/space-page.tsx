// `/space/{spaceId}/settings`: a Space's page: its details, its members and prompt library, its Agents (editors and
// owners create one here), its shared Knowledge (loaded on first use), and, for its owners and admins, its audit
// trail, its edit form and its deletion. Who may not change a part reads it, with the reason. Its weekly spend limit
// (pages/usage/space-limit.tsx) is at its end.
import { t } from '../../i18n';
import { lazy } from '../../lazy';
import { linkTo } from '../../router';
import type { List, Me } from '../../state';
import { useLoaded, useSpaceRole, type AgentDetails, type SpaceDetails } from './build-kit';
import { SpaceAgents } from './space-agents';
import { DeleteSpace } from './space-delete';
import { SpaceEdit } from './space-edit';
import { SpaceLimit } from '../usage/space-limit';

const SpaceKnowledge = lazy(() => import('../knowledge/space-knowledge'), 'SpaceKnowledge');

export function SpacePage({ spaceId, me }: { spaceId: string; me: Me }) {
  const id = encodeURIComponent(spaceId);
  const [space, error, setSpace] = useLoaded<SpaceDetails>(`spaces/${id}`);
  const [agents] = useLoaded<List<AgentDetails>>(`agents?spaceId=${id}&limit=200`);
  const role = useSpaceRole(space ? space.id : null, me, Boolean(space?.isPersonal));
  if (error)
    return (
      <p role="alert" class="error page">
        {error}
      </p>
    );
  if (!space || role === undefined) return <p class="page">{t('loading')}</p>;
  const owner = role === 'owner';
  const link = (path: string, label: string) => (
    <li>
      <a href={path} onClick={linkTo(path)}>
        {label}
      </a>
    </li>
  );
  return (
    <section class="page build" aria-labelledby="space-title">
      <h1 id="space-title">
        <span class="swatch" style={{ background: space.color }} aria-hidden="true" /> {space.name}
      </h1>
      <p class="note">
        {t('slug')}: <code>{space.slug}</code>
      </p>
      {space.description && <p class="space-description">{space.description}</p>}
      <ul class="space-nav">
        {!space.isPersonal && link(`/space/${space.id}/members`, t('members'))}
        {link(`/space/${space.id}/prompts`, t('promptLibrary'))}
        {owner && link(`/audit?resourceId=${space.id}`, t('auditOfSpace'))}
      </ul>
      <SpaceAgents
        space={space}
        agents={agents?.data ?? null}
        mayCreate={role === 'owner' || role === 'editor'}
      />
      {agents && <SpaceKnowledge agents={agents.data} mayChange={role === 'owner' || role === 'editor'} />}
      <section aria-labelledby="space-edit-title">
        <h2 id="space-edit-title">{t('editSpace')}</h2>
        {owner ? (
          <SpaceEdit space={space} onSaved={setSpace} />
        ) : (
          <p class="readonly-reason">{t('spaceOwnersOnly')}</p>
        )}
      </section>
      <SpaceLimit space={space} mayChange={owner} />
      {owner && !space.isPersonal && <DeleteSpace space={space} agents={agents?.data ?? []} />}
    </section>
  );
}
