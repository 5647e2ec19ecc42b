// The App views of a chat (issue 24 §2): the Apps enabled for the Agent (`GET /agents/{agentId}/apps`) and the
// chosen view in a sandboxed iframe. Served from the platform's own origin the iframe gets `allow-scripts
// allow-forms` only, never `allow-same-origin` (and the proxy's CSP sandbox makes the view an opaque origin either
// way): it cannot read the platform's cookies or storage, nor reach `parent.document`. With an App origin
// (APP_ORIGIN, a site of its own) the view keeps that origin (`allow-same-origin` then means the App's, not ours).
// The page's CSP `frame-src` allows exactly that origin. A message from the frame is accepted only when its
// `event.source` is that frame's window and its `event.origin` the App origin ('null', the opaque one, without
// APP_ORIGIN); it can do one thing: put text into the message box (`{ type: 'insert', text }`), which the person
// sends or not. Everything else is dropped.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { t } from '../i18n';

export interface AppViewLink {
  readonly id: string;
  readonly title: string;
  readonly path: string;
  readonly url: string;
}

export interface AgentApps {
  readonly appOrigin: string | null;
  readonly data: readonly { id: string; name: string; views: readonly AppViewLink[] }[];
}

interface Chosen {
  readonly appId: string;
  readonly appName: string;
  readonly view: AppViewLink;
}

/** The most an App may put into the message box at once. */
const INSERT_LIMIT = 4000;

function AppFrame({
  chosen,
  appOrigin,
  onInsert,
  onClose,
}: {
  chosen: Chosen;
  appOrigin: string | null;
  onInsert: (text: string) => void;
  onClose: () => void;
}) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [received, setReceived] = useState<string[]>([]);
  // An App origin that is the platform's own (a misconfiguration) counts as none: the view stays opaque.
  const separate = appOrigin !== null && appOrigin !== location.origin ? appOrigin : null;
  useEffect(() => {
    setReceived([]);
    // Opaque ('null') without an App origin: the source check below is then what tells the frame apart.
    const expectedOrigin = separate ?? 'null';
    const onMessage = (event: MessageEvent) => {
      if (event.source === null || event.source !== frame.current?.contentWindow) return;
      if (event.origin !== expectedOrigin) return;
      const data = event.data as { type?: unknown; text?: unknown } | null;
      if (!data || data.type !== 'insert' || typeof data.text !== 'string') return;
      const text = data.text.slice(0, INSERT_LIMIT);
      onInsert(text);
      setReceived((list) => [...list.slice(-9), text]);
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [chosen.view.url, separate]);
  const heading = `${chosen.appName}: ${chosen.view.title}`;
  return (
    <section class="app-view" aria-labelledby="app-view-title">
      <header>
        <h2 id="app-view-title">{heading}</h2>
        <button type="button" onClick={onClose}>
          {t('closeApp')}
        </button>
      </header>
      <iframe
        ref={frame}
        src={chosen.view.url}
        title={heading}
        // Never allow-same-origin on the platform's origin; on the App origin the App's own origin is kept.
        sandbox={separate ? 'allow-scripts allow-forms allow-same-origin' : 'allow-scripts allow-forms'}
        referrerpolicy="no-referrer"
      />
      {received.length > 0 && (
        <ul class="app-received" aria-label={t('appInserted')}>
          {received.map((text, index) => (
            <li key={index}>{text}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The Apps bar of a chat and the chosen App view. */
export function AppViews({
  agentId,
  onInsert,
  onApps,
}: {
  agentId: string;
  onInsert: (text: string) => void;
  /** The Agent's Apps, views or not, each time they are read (the chat names an App's tool calls with them). */
  onApps?: (apps: AgentApps['data']) => void;
}) {
  const [apps, setShown] = useState<AgentApps | null>(null);
  const [chosen, setChosen] = useState<Chosen | null>(null);
  const setApps = (next: AgentApps | null) => {
    setShown(next);
    if (next) onApps?.(next.data);
  };
  const list = () => api<AgentApps>('GET', `agents/${agentId}/apps`);
  useEffect(() => {
    setChosen(null);
    void list().then(setApps, () => setApps(null));
  }, [agentId]);
  // A view's URL may carry a short-lived `svc_session_token` (15 minutes): opening a view asks for the list again,
  // so the frame gets a fresh one however long the chat has been open. Without an answer the known URL is used.
  const open = async (appId: string, appName: string, view: AppViewLink) => {
    let fresh = view;
    try {
      const now = await list();
      setApps(now);
      fresh = now.data.find((app) => app.id === appId)?.views.find((v) => v.id === view.id) ?? view;
    } catch {
      // The list is unreachable: keep what the bar shows.
    }
    setChosen({ appId, appName, view: fresh });
  };
  // MCP servers have no views: an Agent with only those has no Apps bar.
  if (!apps?.data.some((app) => app.views.length > 0)) return null;
  return (
    <>
      <nav class="app-bar" aria-label={t('apps')}>
        {apps.data.flatMap((app) =>
          app.views.map((view) => (
            <button
              key={`${app.id}/${view.id}`}
              type="button"
              aria-pressed={chosen?.appId === app.id && chosen.view.id === view.id}
              onClick={() => void open(app.id, app.name, view)}
            >
              {app.name}: {view.title}
            </button>
          )),
        )}
      </nav>
      {chosen && (
        <AppFrame
          chosen={chosen}
          appOrigin={apps.appOrigin}
          onInsert={onInsert}
          onClose={() => setChosen(null)}
        />
      )}
    </>
  );
}
