// The navigation of a signed-in person: their personal Agent, the Spaces (the private one first) with their Agents and
// pages, the app's pages (the admins' ones to admins), the language and theme, sign-out; and the language switch the
// signed-out pages show too.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { language, t, type Label, type Language } from './i18n';
import { chooseLanguage } from './language-choice';
import { useMenu } from './menu';
import { linkTo } from './router';
import { onDirectoryChange, type Agent, type List, type Me, type Space } from './state';
import { ThemeToggle } from './theme';

export function LanguageSwitch({ me }: { me: Me | null }) {
  const change = (next: Language) => void chooseLanguage(next, me?.id ?? null).catch(() => undefined);
  return (
    <label class="language">
      {t('language')}{' '}
      <select value={language()} onChange={(e) => change((e.target as HTMLSelectElement).value as Language)}>
        <option value="en">English</option>
        <option value="de">Deutsch</option>
      </select>
    </label>
  );
}

/** The app's pages: [path, label, admins only]. */
const PAGES: readonly (readonly [string, Label, boolean])[] = [
  ['/memories', 'memories', false],
  ['/developer', 'developer', false],
  ['/usage', 'usage', false],
  ['/profile', 'profile', false],
  ['/admin', 'administration', true],
  ['/apps', 'apps', true],
  ['/operations', 'operations', true],
  ['/audit', 'audit', true],
  ['/replay', 'replay', true],
  ['/knowledge', 'knGlobalNav', true],
];

/** A Space's pages: [path below the Space, label]; a personal Space is never shared, so it has no members page. */
const spacePages = (space: Space): readonly (readonly [string, Label])[] => [
  ['settings', 'spaceSettings'],
  ...(space.isPersonal ? [] : ([['members', 'members']] as const)),
  ['prompts', 'promptLibrary'],
];

const link = (path: string, label: string, ariaLabel?: string) => (
  <li key={path}>
    <a
      href={path}
      onClick={linkTo(path)}
      aria-label={ariaLabel}
      aria-current={location.pathname === path ? 'page' : undefined}
    >
      {label}
    </a>
  </li>
);

/** The Spaces and Agents the person may use, read again when they change (a Space created, an Agent moved). */
function useDirectory(me: Me): { spaces: Space[]; agents: Agent[] } {
  const [spaces, setSpaces] = useState<Space[]>([]);
  const [agents, setAgents] = useState<Agent[]>([]);
  useEffect(() => {
    const load = () => {
      void api<List<Space>>('GET', 'spaces?limit=200').then(
        (r) => setSpaces(r.data),
        () => undefined,
      );
      void api<List<Agent>>('GET', 'agents?limit=200').then(
        (r) => setAgents(r.data),
        () => undefined,
      );
    };
    load();
    return onDirectoryChange(load);
  }, [me.id]);
  return { spaces, agents };
}

export function Navigation({ me, onSignOut }: { me: Me; onSignOut: () => void }) {
  const menu = useMenu();
  const { spaces, agents } = useDirectory(me);
  // The personal Space first, then by name.
  const ordered = spaces.toSorted(
    (a, b) => Number(Boolean(b.isPersonal)) - Number(Boolean(a.isPersonal)) || a.name.localeCompare(b.name),
  );
  const personal = agents.filter((agent) => agent.isPersonal);
  const agentLink = (agent: Agent) =>
    link(`/space/${agent.spaceId ?? 'personal'}/agent/${agent.id}`, agent.name);
  return (
    <nav id="main-nav" class={menu.open ? 'sidebar open' : 'sidebar'} aria-label={t('mainNav')}>
      <a class="brand" href="/" onClick={linkTo('/')}>
        {t('appName')}
      </a>
      {menu.toggle}
      {personal.length > 0 && (
        <section>
          <h2>{t('personal')}</h2>
          <ul>{personal.map(agentLink)}</ul>
        </section>
      )}
      <h2>{t('spaces')}</h2>
      <a class="new-space" href="/spaces/new" onClick={linkTo('/spaces/new')}>
        {t('newSpace')}
      </a>
      {ordered.map((space) => (
        <section key={space.id} class="space">
          <h3>{space.name}</h3>
          <ul>{agents.filter((a) => a.spaceId === space.id && !a.isPersonal).map(agentLink)}</ul>
          <ul class="space-links">
            {spacePages(space).map(([page, label]) =>
              link(`/space/${space.id}/${page}`, t(label), `${t(label)}: ${space.name}`),
            )}
          </ul>
        </section>
      ))}
      <ul class="links">
        {PAGES.filter(([, , adminOnly]) => !adminOnly || me.role === 'admin').map(([path, label]) =>
          link(path, t(label)),
        )}
      </ul>
      <LanguageSwitch me={me} />
      <ThemeToggle />
      <button type="button" onClick={onSignOut}>
        {t('signOut')}
      </button>
      <p class="who">{me.email}</p>
    </nav>
  );
}
