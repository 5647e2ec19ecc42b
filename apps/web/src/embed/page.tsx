// The embed page (/embed/{agentId}), inside an iframe on a host site (or opened by the widget and bubble scripts).
// A visit starts a short-lived signed visitor session bound to this Agent (POST /api/v1/embed/{agentId}/session);
// the chat goes through the Agent's conversation route with that session. With Embed session minutes > 0 the
// session and the conversation id stay in sessionStorage for that long, so a reload resumes; with 0 nothing is kept.
// The floating bubble's header shows the Agent's Embed window title (the title is used nowhere else).
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import '../styles.css';
import { ApiError, api, CORE, streamPost } from '../api';
import { renderMarkdown } from '../markdown';

interface Visit {
  readonly token: string;
  readonly expiresAt: string;
  readonly agentName: string;
  readonly windowTitle: string;
  readonly sessionMinutes: number;
}
interface Kept {
  readonly token: string;
  readonly conversationId: string | null;
  readonly until: number;
}
interface Line {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

const agentId = decodeURIComponent(location.pathname.split('/')[2] ?? '');
const mode = new URLSearchParams(location.search).get('mode');
const STORE = `embed:${agentId}`;
const SESSION_HEADER = 'x-embed-session';

/**
 * Where the visit is kept between reloads: the page's sessionStorage when the browser lets a framed page use it;
 * else (third-party storage blocked) the host page's, through the widget or bubble script (postMessage with the
 * host, whose origin frame-ancestors vouched for); else nowhere (a plain iframe then starts afresh).
 */
interface Keeper {
  read(): Promise<Kept | null>;
  write(value: Kept | null): void;
}

function ownStorage(): Storage | null {
  try {
    const storage = window.sessionStorage;
    storage.getItem(STORE);
    return storage;
  } catch {
    return null;
  }
}

const host = (): string | null => {
  if (window.parent === window) return null;
  const ancestors = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  return ancestors?.[0] ?? (document.referrer ? new URL(document.referrer).origin : null);
};

function keeper(): Keeper {
  const storage = ownStorage();
  if (storage)
    return {
      read: async () => JSON.parse(storage.getItem(STORE) ?? 'null') as Kept | null,
      write: (value) => (value ? storage.setItem(STORE, JSON.stringify(value)) : storage.removeItem(STORE)),
    };
  const origin = host();
  if (!origin) return { read: async () => null, write: () => undefined };
  return {
    read: () =>
      new Promise((resolve) => {
        const timer = setTimeout(() => done(null), 500);
        const done = (value: Kept | null) => {
          clearTimeout(timer);
          removeEventListener('message', listen);
          resolve(value);
        };
        const listen = (event: MessageEvent) => {
          const data = event.data as { type?: string; agentId?: string; value?: Kept | null };
          if (event.origin === origin && data?.type === 'agent-embed:kept' && data.agentId === agentId)
            done(data.value ?? null);
        };
        addEventListener('message', listen);
        window.parent.postMessage({ type: 'agent-embed:read', agentId }, origin);
      }),
    write: (value) => window.parent.postMessage({ type: 'agent-embed:keep', agentId, value }, origin),
  };
}

const store = keeper();

async function kept(): Promise<Kept | null> {
  try {
    const value = await store.read();
    if (value && typeof value.token === 'string' && value.until > Date.now()) return value;
  } catch {
    // unreadable: start afresh
  }
  store.write(null);
  return null;
}

// Over 100 lines on purpose: one component: the embed's session, messages and stream share its state.
function EmbedChat() {
  const [visit, setVisit] = useState<Visit | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [lines, setLines] = useState<Line[]>([]);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const conversation = useRef<string | null>(null);
  const abort = useRef<AbortController | null>(null);

  const until = useRef<number | null>(null);
  const keep = (v: Visit) => {
    if (v.sessionMinutes <= 0) return;
    until.current ??= Date.now() + v.sessionMinutes * 60_000;
    store.write({ token: v.token, conversationId: conversation.current, until: until.current });
  };

  useEffect(() => {
    const start = async () => {
      const resume = await kept();
      const v = await api<Visit>(
        'POST',
        `/api/v1/embed/${encodeURIComponent(agentId)}/session`,
        resume ? { resume: resume.token } : {},
      );
      setVisit(v);
      if (v.sessionMinutes <= 0) return store.write(null);
      if (resume && resume.token === v.token) {
        until.current = resume.until;
        conversation.current = resume.conversationId;
        if (resume.conversationId) {
          const page = await api<{ data: Line[] }>(
            'GET',
            `${CORE}/llm/${agentId}/conversation/${resume.conversationId}/messages?limit=200`,
            undefined,
            { [SESSION_HEADER]: v.token },
          ).catch(() => ({ data: [] as Line[] }));
          setLines(page.data.map((m) => ({ id: m.id, role: m.role, content: m.content ?? '' })));
        }
      }
      keep(v);
    };
    start().catch((error: Error) => setFailure(error.message));
  }, []);

  const send = async (event: Event) => {
    event.preventDefault();
    if (!visit || !draft.trim() || busy) return;
    const text = draft;
    setDraft('');
    setBusy(true);
    setNotice(null);
    const controller = new AbortController();
    abort.current = controller;
    let answer = '';
    const answerId = `a-${Date.now()}`;
    setLines((list) => [
      ...list,
      { id: `u-${Date.now()}`, role: 'user', content: text },
      { id: answerId, role: 'assistant', content: '' },
    ]);
    const show = (content: string) =>
      setLines((list) => list.map((line) => (line.id === answerId ? { ...line, content } : line)));
    try {
      await streamPost(
        `${CORE}/llm/${agentId}/conversation`,
        {
          message: text,
          stream: true,
          ...(conversation.current ? { conversationId: conversation.current } : {}),
        },
        controller.signal,
        ({ event: name, data }) => {
          const body = data as Record<string, unknown>;
          if (name === 'conversation') {
            conversation.current = body.conversationId as string;
            keep(visit);
          } else if (name === 'delta') show((answer += String(body.text)));
          else if (name === 'done') show((answer = String((body.message as { content: string }).content)));
          else if (name === 'error') setNotice((body.error as { message?: string })?.message ?? 'error');
        },
        { [SESSION_HEADER]: visit.token },
      );
    } catch (error) {
      if (!controller.signal.aborted) {
        setLines((list) => list.filter((line) => line.id !== answerId || line.content));
        setNotice(
          error instanceof ApiError && error.status === 429
            ? `429: ${error.message}`
            : (error as Error).message,
        );
      }
    } finally {
      setBusy(false);
      abort.current = null;
    }
  };

  if (failure)
    return (
      <main class="embed-chat">
        <h1>{failure}</h1>
      </main>
    );
  return (
    <main class="embed-chat">
      {mode === 'bubble' ? (
        <header class="embed-header">
          <h1>{visit?.windowTitle || visit?.agentName || ''}</h1>
        </header>
      ) : (
        <h1 class="visually-hidden">{visit?.agentName ?? 'Chat'}</h1>
      )}
      <ol class="messages" aria-live="polite">
        {lines.map((line) => (
          <li key={line.id} class={`message ${line.role}`}>
            {line.role === 'assistant' ? (
              <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(line.content) }} />
            ) : (
              <p class="user-text">{line.content}</p>
            )}
          </li>
        ))}
      </ol>
      {notice && (
        <p role="alert" class="error">
          {notice}
        </p>
      )}
      <form class="composer" onSubmit={(e) => void send(e)}>
        <label class="message-box">
          Message
          <textarea value={draft} onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)} />
        </label>
        {busy ? (
          <button type="button" onClick={() => abort.current?.abort()}>
            Stop
          </button>
        ) : (
          <button type="submit" disabled={!visit}>
            Send
          </button>
        )}
      </form>
    </main>
  );
}

render(<EmbedChat />, document.getElementById('embed')!);
