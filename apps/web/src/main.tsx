// The web app: sign-in, the navigation (Spaces, the private one first, and their Agents), the chat route
// `/space/{spaceId}/agent/{agentId}` (`/chat/{agentId}` redirects to it), memories, Knowledge and embed settings,
// Developer Settings and usage; the pages the mails link to (an invitation, a password reset), open without a session.
// Served by the api under `/` with a strict CSP: no inline script, same-origin fetches.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './styles.css';
import { api, ApiError } from './api';
import { language, setLanguage, t, type Language } from './i18n';
import { linkTo, match, navigate } from './router';
import { onDirectoryChange, useRerender, type Agent, type List, type Me, type Space } from './state';
import { SignIn } from './pages/sign-in';
import { Chat } from './pages/chat';
import { Memories } from './pages/memories';
import { AgentSettings } from './pages/agent-settings';
import { Developer } from './pages/developer';
import { AcceptInvitation, PasswordReset } from './pages/mail-links';
import { lazy } from './lazy';
import { useMenu } from './menu';
import { ThemeToggle } from './theme';

// Pages a chat does not need load on first use (chunks of their own, outside the chat page's JavaScript budget).
const Members = lazy(() => import('./pages/members'), 'Members');
const Prompts = lazy(() => import('./pages/prompts'), 'Prompts');
const Usage = lazy(() => import('./pages/usage'), 'Usage');
const Apps = lazy(() => import('./pages/apps'), 'Apps');
const Operations = lazy(() => import('./pages/operations'), 'Operations');
// Build: creating and changing Spaces.
const NewSpace = lazy(() => import('./pages/build/space-new'), 'NewSpace');
const SpacePage = lazy(() => import('./pages/build/space-page'), 'SpacePage');
// People: one's profile, and the admins' page.
const Profile = lazy(() => import('./pages/people/profile'), 'Profile');
const Admin = lazy(() => import('./pages/admin'), 'Admin');

function NotFound() {
  return (
    <section class="page" aria-labelledby="nf-title">
      <h1 id="nf-title">{t('notFound')}</h1>
      <p>{t('notFoundText')}</p>
      <a href="/" onClick={linkTo('/')}>
        {t('back')}
      </a>
    </section>
  );
}

/** `/chat/{agentId}` opened before signing in (the api redirects a person who may use the Agent): the same look-up. */
function ChatRedirect({ agentId }: { agentId: string }) {
  const [missing, setMissing] = useState(false);
  useEffect(() => {
    api<Agent>('GET', `agents/${encodeURIComponent(agentId)}`).then(
      (agent) => navigate(`/space/${agent.spaceId ?? 'personal'}/agent/${agent.id}`, true),
      () => setMissing(true),
    );
  }, [agentId]);
  return missing ? <NotFound /> : <p class="page">{t('loading')}</p>;
}

function LanguageSwitch({ me }: { me: Me | null }) {
  const change = (next: Language) => {
    setLanguage(next);
    if (me) void api('PATCH', 'users/me', { language: next }).catch(() => undefined);
  };
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

function Navigation({ me, onSignOut }: { me: Me; onSignOut: () => void }) {
  const menu = useMenu();
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
  // The personal Space first, then by name.
  const ordered = spaces.toSorted(
    (a, b) => Number(Boolean(b.isPersonal)) - Number(Boolean(a.isPersonal)) || a.name.localeCompare(b.name),
  );
  const personal = agents.filter((agent) => agent.isPersonal);
  const agentLink = (agent: Agent) => {
    const path = `/space/${agent.spaceId ?? 'personal'}/agent/${agent.id}`;
    return (
      <li key={agent.id}>
        <a href={path} onClick={linkTo(path)} aria-current={location.pathname === path ? 'page' : undefined}>
          {agent.name}
        </a>
      </li>
    );
  };
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
            <li>
              <a
                href={`/space/${space.id}/settings`}
                onClick={linkTo(`/space/${space.id}/settings`)}
                aria-label={`${t('spaceSettings')}: ${space.name}`}
              >
                {t('spaceSettings')}
              </a>
            </li>
            {!space.isPersonal && (
              <li>
                <a
                  href={`/space/${space.id}/members`}
                  onClick={linkTo(`/space/${space.id}/members`)}
                  aria-label={`${t('members')}: ${space.name}`}
                >
                  {t('members')}
                </a>
              </li>
            )}
            <li>
              <a
                href={`/space/${space.id}/prompts`}
                onClick={linkTo(`/space/${space.id}/prompts`)}
                aria-label={`${t('promptLibrary')}: ${space.name}`}
              >
                {t('promptLibrary')}
              </a>
            </li>
          </ul>
        </section>
      ))}
      <ul class="links">
        <li>
          <a href="/memories" onClick={linkTo('/memories')}>
            {t('memories')}
          </a>
        </li>
        <li>
          <a href="/developer" onClick={linkTo('/developer')}>
            {t('developer')}
          </a>
        </li>
        <li>
          <a href="/usage" onClick={linkTo('/usage')}>
            {t('usage')}
          </a>
        </li>
        <li>
          <a href="/profile" onClick={linkTo('/profile')}>
            {t('profile')}
          </a>
        </li>
        {me.role === 'admin' && (
          <li>
            <a href="/admin" onClick={linkTo('/admin')}>
              {t('administration')}
            </a>
          </li>
        )}
        {me.role === 'admin' && (
          <li>
            <a href="/apps" onClick={linkTo('/apps')}>
              {t('apps')}
            </a>
          </li>
        )}
        {me.role === 'admin' && (
          <li>
            <a href="/operations" onClick={linkTo('/operations')}>
              {t('operations')}
            </a>
          </li>
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

function Routed({
  path,
  me,
  onChanged,
  onSignedOut,
}: {
  path: string;
  me: Me;
  onChanged: () => void;
  onSignedOut: () => void;
}) {
  let params: Record<string, string> | null;
  if ((params = match('/space/:spaceId/agent/:agentId', path)))
    return <Chat key={params.agentId} spaceId={params.spaceId!} agentId={params.agentId!} />;
  if ((params = match('/chat/:agentId', path))) return <ChatRedirect agentId={params.agentId!} />;
  if ((params = match('/space/:spaceId/members', path)))
    return <Members key={params.spaceId} spaceId={params.spaceId!} me={me} />;
  if ((params = match('/space/:spaceId/prompts', path)))
    return <Prompts key={params.spaceId} spaceId={params.spaceId!} me={me} />;
  if (path === '/spaces/new') return <NewSpace />;
  if ((params = match('/space/:spaceId/settings', path)))
    return <SpacePage key={params.spaceId} spaceId={params.spaceId!} me={me} />;
  if ((params = match('/agent/:agentId/settings', path)))
    return <AgentSettings key={params.agentId} agentId={params.agentId!} me={me} />;
  if (path === '/memories') return <Memories />;
  if (path === '/developer') return <Developer />;
  if (path === '/usage') return <Usage me={me} />;
  if (path === '/admin' && me.role === 'admin') return <Admin me={me} />;
  if (path === '/apps' && me.role === 'admin') return <Apps />;
  if (path === '/operations' && me.role === 'admin') return <Operations />;
  if (path === '/profile') return <Profile me={me} onChanged={onChanged} onSignedOut={onSignedOut} />;
  if (path === '/' || path === '/sign-in')
    return (
      <section class="page">
        <h1>{t('appName')}</h1>
        <p>{t('chooseAgent')}</p>
      </section>
    );
  return <NotFound />;
}

function App() {
  useRerender();
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const load = () =>
    api<Me>('GET', 'users/me').then(
      (user) => {
        if (user.language) setLanguage(user.language);
        setMe(user);
      },
      (error: unknown) => {
        if (error instanceof ApiError && error.status === 401) setMe(null);
        else setMe(null);
      },
    );
  useEffect(() => void load(), []);
  const signOut = async () => {
    await api('POST', 'auth/sign-out').catch(() => undefined);
    setMe(null);
    navigate('/sign-in');
  };
  // The mails' links work signed in or not: the link is the credential.
  if (location.pathname === '/invitations/accept')
    return (
      <main id="main">
        <AcceptInvitation
          onAccepted={() => {
            navigate('/', true);
            void load();
          }}
          languageSwitch={<LanguageSwitch me={null} />}
        />
      </main>
    );
  if (location.pathname === '/password-reset')
    return (
      <main id="main">
        <PasswordReset languageSwitch={<LanguageSwitch me={null} />} />
      </main>
    );
  if (me === undefined) return <p class="page">{t('loading')}</p>;
  if (me === null)
    return (
      <main id="main">
        <SignIn onSignedIn={() => void load()} languageSwitch={<LanguageSwitch me={null} />} />
      </main>
    );
  return (
    <div class="layout">
      <a class="skip" href="#main">
        {t('skip')}
      </a>
      <Navigation me={me} onSignOut={() => void signOut()} />
      <main id="main">
        <Routed
          path={location.pathname}
          me={me}
          onChanged={() => void load()}
          onSignedOut={() => {
            setMe(null);
            navigate('/sign-in');
          }}
        />
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
