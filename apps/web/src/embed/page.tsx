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
import { visitKeeper } from './keeper';

interface Visit {
  readonly token: string;
  readonly expiresAt: string;
  readonly agentName: string;
  readonly windowTitle: string;
  readonly sessionMinutes: number;
}
interface Line {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

const agentId = decodeURIComponent(location.pathname.split('/')[2] ?? '');
const mode = new URLSearchParams(location.search).get('mode');
const SESSION_HEADER = 'x-embed-session';

const store = visitKeeper(agentId);

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
      const resume = await store.kept();
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
