// The open conversation's state: its messages (loaded, or waited for when a reload caught an answer being written),
// the turn streaming now (Stop aborts the fetch, which ends the upstream call on the server), the reruns from an
// edited question or for a new answer (each a branch beside the earlier one, which is kept and can be switched back
// to), and each answer's memory word (kept on it when the stored turn replaces it).
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, streamPost } from '../../api';
import { errorSentence } from '../../errors';
import { fetchMessages, outgoing, storedTurn } from './stored-messages';
import { withStoredMemory } from './stored-memory';
import {
  answerAwaiting,
  waitingApprovals,
  withApprovalAsked,
  withConnectAsked,
  withElicitationAsked,
  withTool,
  withToolNews,
} from './live-tools';
import { conversationQuery, type ApprovalAsked, type ChatMessage, type Citation } from './types';

/** A question asked again: after the message it followed (null: first), keeping its files. */
interface Branch {
  readonly parentId: string | null;
  readonly question: ChatMessage;
}

interface Listeners {
  /** A turn ended (stored, stopped or failed): the conversation list may have changed. */
  readonly onTurnEnded: () => void;
  /** The turn's answer proposed memories. */
  readonly onProposed: () => void;
}

// Over 100 lines on purpose: one conversation's state, which the stream, the reruns and the loading all change.
export function useConversation(agentId: string, base: string, { onTurnEnded, onProposed }: Listeners) {
  const [conversationId, setConversationId] = useState<string | null>(conversationQuery());
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [incognito, setIncognito] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [citation, setCitation] = useState<Citation | null>(null);
  const abort = useRef<AbortController | null>(null);
  const streamingConversation = useRef<string | null>(null);
  /** The conversation this page's turn created: the turn shows its messages, they are not loaded under it. */
  const createdHere = useRef<string | null>(null);

  /** The conversation's messages with what their turns did with memory. */
  const reload = async (id: string) => withStoredMemory(agentId, id, await fetchMessages(base, id));
  const loadMessages = async (id: string) => {
    let stored = await reload(id);
    setMessages(stored);
    // Its last message a question: its answer is still being written (the page was reloaded during a stream).
    // Show it once it is complete, and meanwhile the tool calls it waits for the person to approve.
    let asked: readonly ApprovalAsked[] = [];
    for (let waited = 0; stored.at(-1)?.role === 'user' && waited < 300; waited++) {
      const before = asked;
      asked = await waitingApprovals(`${base}/${id}`, asked);
      if (conversationQuery() !== id) return;
      if (asked !== before) setMessages([...stored, answerAwaiting(asked)]);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (conversationQuery() !== id) return;
      stored = await reload(id);
      if (stored.at(-1)?.role === 'assistant')
        setMessages(
          asked.length > 0
            ? stored.map((m, i, all) => (i === all.length - 1 ? { ...m, approvals: asked } : m))
            : stored,
        );
    }
  };
  useEffect(() => {
    // A conversation created by a turn of this page is not reloaded under it: the turn shows its stored messages when it
    // ends, keeping what only its stream told (a Connect prompt, approvals). A page slow to render may run this effect
    // after the turn ended: a load then replaced the answer with the stored one, the Connect button gone.
    if (abort.current || (conversationId !== null && conversationId === createdHere.current)) return;
    if (conversationId) void loadMessages(conversationId).catch((e: unknown) => setError(errorSentence(e)));
    else setMessages([]);
  }, [conversationId]);

  const open = (id: string | null) => {
    abort.current?.abort();
    createdHere.current = null;
    setConversationId(id);
    setCitation(null);
    // A listed conversation is never incognito, and a new one starts as the default: kept.
    setIncognito(false);
    history.replaceState(
      null,
      '',
      id ? `${location.pathname}?c=${encodeURIComponent(id)}` : location.pathname,
    );
  };

  /** Sends a question; `branch` reruns an earlier one: after its parent, with its files. */
  const send = async (text: string, attachments: File[] = [], branch?: Branch) => {
    if (!text.trim() || busy) return;
    setBusy(true);
    setError(null);
    const controller = new AbortController();
    abort.current = controller;
    const kept = branch?.question.attachments?.length ? branch.question : null;
    const message = kept
      ? { content: text, attachments: [{ fromMessageId: kept.id }] }
      : await outgoing(text, attachments);
    const pendingUser: ChatMessage = {
      id: 'pending-user',
      role: 'user',
      content: text,
      citations: [],
      attachments:
        kept?.attachments ??
        attachments.map((file) => ({
          name: file.name,
          mimeType: file.type,
          sizeBytes: file.size,
        })),
    };
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
          ...(current && branch ? { parentMessageId: branch.parentId } : {}),
        },
        controller.signal,
        ({ event, data }) => {
          const body = data as Record<string, unknown>;
          if (event === 'conversation') {
            current = body.conversationId as string;
            streamingConversation.current = current;
            if (!conversationId) {
              createdHere.current = current;
              setConversationId(current);
              history.replaceState(null, '', `${location.pathname}?c=${encodeURIComponent(current)}`);
            }
          } else if (event === 'retrieval') sources = body.sources as Citation[];
          else if (event === 'tool_call' || event === 'tool_result') update(withTool(answer, event, body));
          else if (event === 'tool_approval_required') update(withApprovalAsked(answer, body));
          else if (event === 'tool_progress' || event === 'tool_log')
            update(withToolNews(answer, event, body));
          else if (event === 'tool_elicitation_required') update(withElicitationAsked(answer, body));
          else if (event === 'tool_auth_required') update(withConnectAsked(answer, body));
          else if (event === 'delta')
            update({ ...answer, content: (answer.content ?? '') + String(body.text) });
          else if (event === 'done') {
            const done = body.message as ChatMessage;
            const withText = done.citations.map((c) => ({
              ...c,
              text: sources.find((s) => s.documentId === c.documentId && s.start === c.start)?.text,
            }));
            update({
              ...done,
              citations: withText,
              streaming: false,
              approvals: answer.approvals,
              elicitations: answer.elicitations,
              connectApps: answer.connectApps,
            });
            if (done.memory?.proposals?.length) onProposed();
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
      onTurnEnded();
      // The stored turn replaces the optimistic one (its ids: delete, edit and regenerate need them; a rerun's
      // versions too). A stopped turn is recorded (incomplete) just after the abort reaches the server: wait for it.
      if (current && (!incognito || branch)) {
        const stored = await storedTurn(base, current, answer).catch(() => null);
        // The messages route does not keep a turn's memory word (the streamed answer's stays on it) nor the approval
        // prompts of this page's turns (each answer keeps its own, saying what the person decided).
        if (stored)
          setMessages((shown) =>
            stored.map((m) => ({
              ...m,
              ...(m.id === answer.id ? { memory: answer.memory } : {}),
              approvals: shown.find((s) => s.id === m.id)?.approvals,
              elicitations: shown.find((s) => s.id === m.id)?.elicitations,
              connectApps: shown.find((s) => s.id === m.id)?.connectApps,
            })),
          );
      }
    }
  };

  const stop = () => {
    abort.current?.abort();
    const id = conversationId ?? streamingConversation.current;
    if (id) void api('POST', `${base}/${id}/stop`).catch(() => undefined);
  };

  /**
   * Asks the question at `index` again as `text` (edited, or the same for a new answer): a branch after the message
   * it followed, with its files; the earlier branch stays on the server, one switch away.
   */
  const rerunFrom = async (index: number, text: string) => {
    const question = messages[index];
    if (!conversationId || !question) return;
    const parentId = question.parentId !== undefined ? question.parentId : (messages[index - 1]?.id ?? null);
    setMessages((list) => list.slice(0, index));
    await send(text, [], { parentId, question });
  };
  const regenerate = () => {
    const lastUser = messages.findLastIndex((m) => m.role === 'user');
    if (lastUser >= 0) void rerunFrom(lastUser, messages[lastUser]!.content ?? '');
  };
  /** Continues the conversation from the branch holding `messageId`, and shows it. */
  const switchTo = async (messageId: string) => {
    if (!conversationId || busy) return;
    try {
      await api('PUT', `${base}/${conversationId}/head`, { messageId });
      setMessages(await reload(conversationId));
    } catch (failure) {
      setError(errorSentence(failure));
    }
  };
  const deleteMessage = async (id: string) => {
    if (!conversationId) return;
    await api('DELETE', `${base}/${conversationId}/messages/${id}`).catch((e: unknown) =>
      setError(errorSentence(e)),
    );
    setMessages((list) => list.filter((m) => m.id !== id));
  };

  return {
    conversationId,
    messages,
    incognito,
    setIncognito,
    busy,
    error,
    setError,
    citation,
    setCitation,
    open,
    send,
    stop,
    rerunFrom,
    regenerate,
    switchTo,
    deleteMessage,
  };
}
