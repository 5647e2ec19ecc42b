// The web app: sign-in, the navigation (navigation.tsx), and the routes of its pages: the chat
// `/space/{spaceId}/agent/{agentId}` (`/chat/{agentId}` redirects to it), the Spaces' and Agents' pages, memories,
// Developer Settings, usage, the profile and the admins' pages; the pages the mails link to (an invitation, a password
// reset), open without a session.
// Served by the api under `/` with a strict CSP: no inline script, same-origin fetches.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './styles.css';
import { api, ApiError } from './api';
import { setLanguage, t } from './i18n';
import { adoptProfileLanguage, rememberedLanguage } from './language-choice';
import { linkTo, match, navigate } from './router';
import { useRerender, type Agent, type Me } from './state';
import { SignIn } from './pages/sign-in';
import { Chat } from './pages/chat/chat';
import { Memories } from './pages/memories';
import { AcceptInvitation, PasswordReset } from './pages/mail-links';
import { lazy } from './lazy';
import { LanguageSwitch, Navigation } from './navigation';
import { ThemeToggle } from './theme';

// Pages a chat does not need load on first use (chunks of their own, outside the chat page's JavaScript budget).
const Members = lazy(() => import('./pages/members/members'), 'Members');
const Prompts = lazy(() => import('./pages/prompts'), 'Prompts');
const Usage = lazy(() => import('./pages/usage/usage-page'), 'Usage');
const Apps = lazy(() => import('./pages/apps'), 'Apps');
const Operations = lazy(() => import('./pages/operations'), 'Operations');
const Audit = lazy(() => import('./pages/audit'), 'Audit');
const AgentHistory = lazy(() => import('./pages/agent-history'), 'AgentHistory');
const Replay = lazy(() => import('./pages/replay'), 'Replay');
const Developer = lazy(() => import('./pages/developer'), 'Developer');
const AgentSettings = lazy(() => import('./pages/agent-settings'), 'AgentSettings');
// Build: creating and changing Spaces.
const NewSpace = lazy(() => import('./pages/build/space-new'), 'NewSpace');
const SpacePage = lazy(() => import('./pages/build/space-page'), 'SpacePage');
// People: one's profile, and the admins' page.
const Profile = lazy(() => import('./pages/people/profile'), 'Profile');
const Admin = lazy(() => import('./pages/admin'), 'Admin');
// Knowledge: the Global documents (admins).
const GlobalKnowledge = lazy(() => import('./pages/knowledge/global-knowledge'), 'GlobalKnowledge');

// The language this browser was last told (the profile's, once read, may turn it; see language-choice.ts).
const remembered = rememberedLanguage();
if (remembered) setLanguage(remembered);

/** The language switch and the theme toggle of the pages open without a session (they have no navigation). */
function OutsideSwitches() {
  return (
    <div class="outside-switches">
      <LanguageSwitch me={null} />
      <ThemeToggle />
    </div>
  );
}

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
      (agent) => navigate(`/space/${agent.spaceId ?? 'personal'}/agent/${agent.id}${location.search}`, true),
      () => setMissing(true),
    );
  }, [agentId]);
  return missing ? <NotFound /> : <p class="page">{t('loading')}</p>;
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
  if ((params = match('/agent/:agentId/history', path)))
    return <AgentHistory key={params.agentId} agentId={params.agentId!} me={me} search={location.search} />;
  if (path === '/memories') return <Memories />;
  if (path === '/developer') return <Developer />;
  if (path === '/usage') return <Usage me={me} />;
  if (path === '/admin' && me.role === 'admin') return <Admin me={me} />;
  if (path === '/apps' && me.role === 'admin') return <Apps />;
  if (path === '/operations' && me.role === 'admin') return <Operations />;
  if (path === '/replay' && me.role === 'admin') return <Replay />;
  if (path === '/audit') return <Audit me={me} search={location.search} />;
  if (path === '/knowledge' && me.role === 'admin') return <GlobalKnowledge />;
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
        adoptProfileLanguage(user);
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
          languageSwitch={<OutsideSwitches />}
        />
      </main>
    );
  if (location.pathname === '/password-reset')
    return (
      <main id="main">
        <PasswordReset languageSwitch={<OutsideSwitches />} />
      </main>
    );
  if (me === undefined) return <p class="page">{t('loading')}</p>;
  if (me === null)
    return (
      <main id="main">
        <SignIn onSignedIn={() => void load()} languageSwitch={<OutsideSwitches />} />
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
