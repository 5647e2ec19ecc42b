// The chat: the conversation list (search, archive, delete), the messages (Markdown made safe, citations `[n]` that
// open the cited passage), a streamed answer with Stop (aborting the fetch ends the upstream call on the server),
// regenerate, edit-and-rerun, attachments, an incognito toggle, and the turn's memory word (a proposal to answer, or
// the flagged notice); the Agent's App views (app-views.tsx).
// Over 300 lines on purpose: the chat's parts (list, messages, stream, edits, attachments, memory word) share
// one conversation's state; what needs none of it lives in its own file (app-views.tsx).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, CORE, streamPost } from '../api';
import { errorSentence } from '../errors';
import { t } from '../i18n';
import { renderMarkdown } from '../markdown';
import { linkTo, navigate } from '../router';
import { AppViews } from './app-views';
import { lazy } from '../lazy';
import type { Agent, List } from '../state';

// The Space's prompt library, loaded when the person first opens it (not part of the chat page's JavaScript).
const PromptPicker = lazy(() => import('./prompt-picker'), 'PromptPicker');

export interface Citation {
  readonly index: number;
  readonly documentId: string;
  readonly documentName: string;
  readonly sectionPath: readonly string[];
  readonly start: number;
  readonly end: number;
  readonly text?: string;
  readonly summary?: { readonly text: string } | null;
}

interface MemoryWord {
  readonly proposals?: readonly { id: string; text: string }[];
  readonly flagged?: string | null;
  readonly saved?: readonly { id: string; text: string }[];
}

export interface ChatMessage {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly content: string | null;
  readonly citations: readonly Citation[];
  readonly status?: 'complete' | 'incomplete';
  readonly memory?: MemoryWord;
  readonly streaming?: boolean;
}

interface Conversation {
  readonly id: string;
  readonly title: string | null;
  readonly archived: boolean;
  readonly lastMessageAt: string | null;
}

interface Proposal {
  readonly id: string;
  readonly text: string | null;
}

const conversationQuery = () => new URLSearchParams(location.search).get('c');

/** The answer's HTML, memoised per content (a long conversation renders each message once). */
function MessageBody({ content, onCite }: { content: string; onCite: (n: number) => void }) {
  const html = useMemo(() => renderMarkdown(content), [content]);
  return (
    <div
      class="markdown"
      dangerouslySetInnerHTML={{ __html: html }}
      onClick={(event) => {
        const target = (event.target as HTMLElement).closest<HTMLElement>('button.citation');
        if (target) onCite(Number(target.dataset.citation));
      }}
    />
  );
}

function CitationPanel({
  agentId,
  citation,
  onClose,
}: {
  agentId: string;
  citation: Citation;
  onClose: () => void;
}) {
  const [passage, setPassage] = useState<string | null>(citation.text ?? null);
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    close.current?.focus();
    if (citation.text) return;
    void api<string | { text?: string; content?: string }>(
      'GET',
      `knowledge/${agentId}/documents/${citation.documentId}/content`,
    ).then(
      (content) => {
        const text = typeof content === 'string' ? content : (content.text ?? content.content ?? '');
        setPassage(text.slice(citation.start, citation.end));
      },
      (error: unknown) => setPassage(errorSentence(error)),
    );
  }, [citation]);
  return (
    <aside class="citation-panel" aria-labelledby="citation-title">
      <h2 id="citation-title">
        {t('source')} [{citation.index}]: {citation.documentName}
      </h2>
      {citation.sectionPath.length > 0 && (
        <p class="section">
          {t('section')}: {citation.sectionPath.join(' › ')}
        </p>
      )}
      <blockquote class="passage">{passage ?? t('loading')}</blockquote>
      {citation.summary?.text && (
        <div class="summary">
          <h3>{t('summary')}</h3>
          <p>{citation.summary.text}</p>
        </div>
      )}
      <button type="button" ref={close} onClick={onClose}>
        {t('close')}
      </button>
    </aside>
  );
}

function ProposalCard({
  agentId,
  proposal,
  onAnswered,
}: {
  agentId: string;
  proposal: Proposal;
  onAnswered: () => void;
}) {
  const answer = (kind: 'confirm' | 'personal' | 'discard') =>
    void api('POST', `memory/${agentId}/proposals/${proposal.id}`, { answer: kind }).then(
      onAnswered,
      onAnswered,
    );
  return (
    <div class="proposal" role="group" aria-label={t('memoryProposal')}>
      <p>
        <strong>{t('memoryProposal')}</strong> {proposal.text}
      </p>
      <button type="button" onClick={() => answer('confirm')}>
        {t('confirm')}
      </button>
      <button type="button" onClick={() => answer('personal')}>
        {t('saveForMe')}
      </button>
      <button type="button" onClick={() => answer('discard')}>
        {t('discard')}
      </button>
    </div>
  );
}

const readBase64 = (file: File): Promise<string> =>
  new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('unreadable file'));
    reader.readAsDataURL(file);
  });

// Over 100 lines on purpose: one component holding the conversation's state that every part of the chat reads
// (see the file's header).
export function Chat({ spaceId, agentId }: { spaceId: string; agentId: string }) {
  const [agent, setAgent] = useState<Agent | null>(null);
  const [missing, setMissing] = useState(false);
  const [conversations, setConversations] = useState<Conversation[]>([]);
  const [showArchived, setShowArchived] = useState(false);
  const [search, setSearch] = useState('');
  const [conversationId, setConversationId] = useState<string | null>(conversationQuery());
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [draft, setDraft] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [incognito, setIncognito] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [citation, setCitation] = useState<Citation | null>(null);
  const [proposals, setProposals] = useState<Proposal[]>([]);
  const [flagged, setFlagged] = useState<string | null>(null);
  const [editing, setEditing] = useState<{ id: string; text: string } | null>(null);
  const [picking, setPicking] = useState(false);
  const messageBox = useRef<HTMLTextAreaElement>(null);
  const abort = useRef<AbortController | null>(null);
  const streamingConversation = useRef<string | null>(null);
  const base = `${CORE}/llm/${agentId}/conversation`;

  const loadConversations = () =>
    api<List<Conversation>>('GET', `${base}?limit=200&archived=${showArchived ? 'all' : 'false'}`).then(
      (list) => setConversations(list.data),
      () => undefined,
    );
  const loadMessages = async (id: string) => {
    let stored = await fetchMessages(id);
    setMessages(stored);
    // Its last message a question: its answer is still being written (the page was reloaded during a stream).
    // Show it once it is complete.
    for (let waited = 0; stored.at(-1)?.role === 'user' && waited < 300; waited++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (conversationQuery() !== id) return;
      stored = await fetchMessages(id);
      if (stored.at(-1)?.role === 'assistant') setMessages(stored);
    }
  };
  const fetchMessages = async (id: string) => {
    const all: ChatMessage[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await api<List<ChatMessage>>(
        'GET',
        `${base}/${id}/messages?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      all.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  };
  /**
   * The stored turn replaces the streamed one. The stored answer's citations carry no chunk text (nor a cluster
   * summary when recorded before the summary was kept): the streamed answer's are kept on it (no second fetch).
   */
  const settle = async (id: string, live?: ChatMessage) => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const stored = await fetchMessages(id);
      const last = stored.at(-1);
      if (last?.role === 'assistant') {
        if (!live || live.citations.length === 0) return setMessages(stored);
        const citations = last.citations.map((citation) => {
          const streamed = live.citations.find((c) => c.index === citation.index);
          return streamed?.documentId === citation.documentId
            ? {
                ...citation,
                text: citation.text ?? streamed.text,
                summary: citation.summary ?? streamed.summary,
              }
            : citation;
        });
        return setMessages([...stored.slice(0, -1), { ...last, citations }]);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  const loadProposals = () =>
    api<List<Proposal>>('GET', `memory/${agentId}/proposals`).then(
      (list) => setProposals(list.data),
      () => setProposals([]),
    );

  useEffect(() => {
    api<Agent>('GET', `agents/${agentId}`).then(
      (found) => {
        setAgent(found);
        const own = `/space/${found.spaceId ?? 'personal'}/agent/${found.id}`;
        if (own !== location.pathname) navigate(own + location.search, true);
      },
      () => setMissing(true),
    );
    void loadProposals();
  }, [agentId]);
  useEffect(() => void loadConversations(), [agentId, showArchived]);
  useEffect(() => {
    // A conversation created by the turn streaming now is not reloaded under it (the turn reloads when it ends).
    if (abort.current) return;
    if (conversationId) void loadMessages(conversationId).catch((e: unknown) => setError(errorSentence(e)));
    else setMessages([]);
  }, [conversationId]);

  const open = (id: string | null) => {
    abort.current?.abort();
    setConversationId(id);
    setCitation(null);
    setFlagged(null);
    history.replaceState(
      null,
      '',
      id ? `${location.pathname}?c=${encodeURIComponent(id)}` : location.pathname,
    );
  };

  const send = async (text: string, attachments: File[] = []) => {
    if (!text.trim() || busy) return;
    setBusy(true);
    setError(null);
    setFlagged(null);
    const controller = new AbortController();
    abort.current = controller;
    const message = attachments.length
      ? {
          content: text,
          attachments: await Promise.all(
            attachments.map(async (file) => ({
              name: file.name,
              mimeType: file.type || 'application/octet-stream',
              dataBase64: await readBase64(file),
            })),
          ),
        }
      : text;
    const pendingUser: ChatMessage = { id: 'pending-user', role: 'user', content: text, citations: [] };
    let answer: ChatMessage = {
      id: 'pending-answer',
      role: 'assistant',
      content: '',
      citations: [],
      streaming: true,
    };
    let sources: Citation[] = [];
    setMessages((list) => [...list, pendingUser, answer]);
    const update = (next: ChatMessage) => {
      const previous = answer;
      answer = next;
      setMessages((list) => list.map((m) => (m === previous ? next : m)));
    };
    let current = conversationId;
    try {
      await streamPost(
        base,
        {
          message,
          stream: true,
          // A reload does not stop the answer (it is shown once complete); Stop does, through the stop route.
          continueOnDisconnect: true,
          ...(current ? { conversationId: current } : incognito ? { visibility: 'incognito' } : {}),
        },
        controller.signal,
        ({ event, data }) => {
          const body = data as Record<string, unknown>;
          if (event === 'conversation') {
            current = body.conversationId as string;
            streamingConversation.current = current;
            if (!conversationId) {
              setConversationId(current);
              history.replaceState(null, '', `${location.pathname}?c=${encodeURIComponent(current)}`);
            }
          } else if (event === 'retrieval') sources = body.sources as Citation[];
          else if (event === 'delta')
            update({ ...answer, content: (answer.content ?? '') + String(body.text) });
          else if (event === 'done') {
            const done = body.message as ChatMessage;
            const withText = done.citations.map((c) => ({
              ...c,
              text: sources.find((s) => s.documentId === c.documentId && s.start === c.start)?.text,
            }));
            update({ ...done, citations: withText, streaming: false });
            if (done.memory?.flagged) setFlagged(done.memory.flagged);
            if (done.memory?.proposals?.length) void loadProposals();
          } else if (event === 'error')
            setError(
              errorSentence(new ApiError(500, (body.error as { code?: string })?.code ?? 'error', '')),
            );
        },
      );
    } catch (failure) {
      if (controller.signal.aborted) update({ ...answer, streaming: false, status: 'incomplete' });
      else {
        setError(errorSentence(failure));
        setMessages((list) => list.filter((m) => m !== pendingUser && m !== answer));
      }
    } finally {
      abort.current = null;
      streamingConversation.current = null;
      setBusy(false);
      void loadConversations();
      // The stored turn replaces the optimistic one (its ids: delete, edit and regenerate need them). A stopped turn
      // is recorded (incomplete) just after the abort reaches the server: wait for it a little.
      if (current && !incognito) await settle(current, answer).catch(() => undefined);
    }
  };

  const stop = () => {
    abort.current?.abort();
    if (conversationId || streamingConversation.current)
      void api('POST', `${base}/${conversationId ?? streamingConversation.current}/stop`).catch(
        () => undefined,
      );
  };

  const submit = (event: Event) => {
    event.preventDefault();
    const text = draft;
    const attached = files;
    setDraft('');
    setFiles([]);
    void send(text, attached);
  };

  /** Deletes the messages from `index` on (server side, one by one), then sends `text` again. */
  const rerunFrom = async (index: number, text: string) => {
    if (!conversationId) return;
    for (const message of messages.slice(index).toReversed())
      await api('DELETE', `${base}/${conversationId}/messages/${message.id}`).catch(() => undefined);
    setMessages((list) => list.slice(0, index));
    await send(text);
  };
  const regenerate = () => {
    const lastUser = messages.findLastIndex((m) => m.role === 'user');
    if (lastUser >= 0) void rerunFrom(lastUser, messages[lastUser]!.content ?? '');
  };
  const deleteMessage = async (id: string) => {
    if (!conversationId) return;
    await api('DELETE', `${base}/${conversationId}/messages/${id}`).catch((e: unknown) =>
      setError(errorSentence(e)),
    );
    setMessages((list) => list.filter((m) => m.id !== id));
  };
  const archive = async (conversation: Conversation) => {
    await api('PATCH', `${base}/${conversation.id}`, { archived: !conversation.archived }).catch(
      (e: unknown) => setError(errorSentence(e)),
    );
    void loadConversations();
  };
  const remove = async (conversation: Conversation) => {
    await api('DELETE', `${base}/${conversation.id}`).catch((e: unknown) => setError(errorSentence(e)));
    if (conversation.id === conversationId) open(null);
    void loadConversations();
  };

  if (missing)
    return (
      <section class="page">
        <h1>{t('notFound')}</h1>
        <p>{t('notFoundText')}</p>
      </section>
    );
  const shown = conversations.filter((c) =>
    (c.title ?? c.id).toLowerCase().includes(search.trim().toLowerCase()),
  );
  const lastAssistant = messages.findLastIndex((m) => m.role === 'assistant');
  return (
    <div class="chat">
      <section class="conversations" aria-labelledby="conversations-title">
        <h2 id="conversations-title">{t('conversations')}</h2>
        <button type="button" onClick={() => open(null)}>
          {t('newConversation')}
        </button>
        <label>
          {t('searchConversations')}
          <input
            type="search"
            value={search}
            onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
          />
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={showArchived}
            onChange={(e) => setShowArchived((e.target as HTMLInputElement).checked)}
          />
          {t('showArchived')}
        </label>
        <ul>
          {shown.map((c) => (
            <li key={c.id} class={c.id === conversationId ? 'current' : ''}>
              <a
                href={`${location.pathname}?c=${c.id}`}
                onClick={(e) => {
                  e.preventDefault();
                  open(c.id);
                }}
              >
                {c.title ?? c.id}
              </a>
              <button
                type="button"
                onClick={() => void archive(c)}
                aria-label={`${c.archived ? t('unarchive') : t('archive')} ${c.title ?? c.id}`}
              >
                {c.archived ? t('unarchive') : t('archive')}
              </button>
              <button
                type="button"
                onClick={() => void remove(c)}
                aria-label={`${t('delete')} ${c.title ?? c.id}`}
              >
                {t('delete')}
              </button>
            </li>
          ))}
        </ul>
      </section>
      <section class="thread" aria-labelledby="agent-title">
        <header>
          <h1 id="agent-title">{agent?.name ?? t('loading')}</h1>
          {agent && (
            <a href={`/agent/${agent.id}/settings`} onClick={linkTo(`/agent/${agent.id}/settings`)}>
              {t('settings')}
            </a>
          )}
          <span class="space-id" hidden>
            {spaceId}
          </span>
        </header>
        <AppViews agentId={agentId} onInsert={(text) => setDraft(text)} />
        <ol class="messages" aria-live="polite">
          {messages.map((m, index) => (
            <li
              key={m.id}
              class={`message ${m.role}`}
              data-status={m.status ?? ''}
              data-streaming={m.streaming ? 'true' : 'false'}
            >
              <span class="role">{m.role === 'user' ? t('you') : t('assistant')}</span>
              {editing?.id === m.id ? (
                <form
                  onSubmit={(e) => {
                    e.preventDefault();
                    const text = editing.text;
                    setEditing(null);
                    void rerunFrom(index, text);
                  }}
                >
                  <label>
                    {t('edit')}
                    <textarea
                      value={editing.text}
                      onInput={(e) => setEditing({ id: m.id, text: (e.target as HTMLTextAreaElement).value })}
                    />
                  </label>
                  <button type="submit">{t('saveAndRerun')}</button>
                  <button type="button" onClick={() => setEditing(null)}>
                    {t('cancel')}
                  </button>
                </form>
              ) : m.role === 'assistant' ? (
                m.content ? (
                  <MessageBody
                    content={m.content}
                    onCite={(n) => {
                      const cited = m.citations.find((c) => c.index === n);
                      if (cited) setCitation(cited);
                    }}
                  />
                ) : (
                  <p class="thinking">{m.streaming ? t('thinking') : ''}</p>
                )
              ) : (
                <p class="user-text">{m.content}</p>
              )}
              {m.status === 'incomplete' && <p class="note">{t('incomplete')}</p>}
              {!m.streaming && !busy && !m.id.startsWith('pending') && editing?.id !== m.id && (
                <div class="actions">
                  {m.role === 'user' && (
                    <button type="button" onClick={() => setEditing({ id: m.id, text: m.content ?? '' })}>
                      {t('edit')}
                    </button>
                  )}
                  {m.role === 'assistant' && index === lastAssistant && (
                    <button type="button" onClick={regenerate}>
                      {t('regenerate')}
                    </button>
                  )}
                  <button type="button" onClick={() => void deleteMessage(m.id)}>
                    {t('deleteMessage')}
                  </button>
                </div>
              )}
            </li>
          ))}
        </ol>
        {!busy && messages.at(-1)?.role === 'user' && (
          <p class="thinking" role="status">
            {t('thinking')}
          </p>
        )}
        {flagged && (
          <p role="status" class="flagged">
            {flagged}
          </p>
        )}
        {proposals.map((p) => (
          <ProposalCard key={p.id} agentId={agentId} proposal={p} onAnswered={() => void loadProposals()} />
        ))}
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <form class="composer" onSubmit={submit}>
          <label class="message-box">
            {t('message')}
            <textarea
              ref={messageBox}
              value={draft}
              onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && !e.shiftKey) submit(e);
              }}
            />
          </label>
          <button type="button" class="open-prompts" aria-haspopup="dialog" onClick={() => setPicking(true)}>
            {t('openPromptLibrary')}
          </button>
          <label class="attach">
            {t('attach')}
            <input
              type="file"
              multiple
              onChange={(e) => setFiles(Array.from((e.target as HTMLInputElement).files ?? []))}
            />
          </label>
          {!conversationId && (
            <label class="check">
              <input
                type="checkbox"
                checked={incognito}
                onChange={(e) => setIncognito((e.target as HTMLInputElement).checked)}
              />
              {t('incognito')}
            </label>
          )}
          {busy ? (
            <button type="button" class="stop" onClick={stop}>
              {t('stop')}
            </button>
          ) : (
            <button type="submit">{t('send')}</button>
          )}
        </form>
      </section>
      {picking && (
        <PromptPicker
          spaceId={agent?.spaceId ?? spaceId}
          onChoose={(text) => setDraft((current) => (current.trim() ? `${current}\n\n${text}` : text))}
          onClose={() => {
            setPicking(false);
            // After the dialog's own focus restore (to the Prompts button), which may come later.
            setTimeout(() => messageBox.current?.focus(), 0);
          }}
        />
      )}
      {citation && <CitationPanel agentId={agentId} citation={citation} onClose={() => setCitation(null)} />}
    </div>
  );
}
