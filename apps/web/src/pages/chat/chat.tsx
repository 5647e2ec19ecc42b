// The chat: the conversation list (pinned and by date; search, pin, rename, archive, delete), the messages (Markdown
// made safe, citations `[n]` that open the cited passage), a streamed answer with Stop, each message's actions,
// attachments, an incognito toggle, and the turn's memory word at its answer (saved notes, a proposal to answer, the
// flagged notice); the Agent's App views (app-views.tsx).
// The open conversation's state is one hook (use-conversation.ts); each part is a file of this folder.
import { useEffect, useReducer, useRef, useState } from 'preact/hooks';
import { api, CORE } from '../../api';
import { t } from '../../i18n';
import { lazy } from '../../lazy';
import { linkTo, navigate } from '../../router';
import type { Agent } from '../../state';
import { AppViews } from '../app-views';
import { AnswerDetails } from './answer-details';
import { CitationPanel } from './citation-panel';
import { Composer } from './composer';
import { ConversationList } from './conversation-list';
import { MessageList } from './message-list';
import { Proposals } from './proposals';
import { useConversation } from './use-conversation';
import { useTurnRecords } from './use-turn-records';

// The Space's prompt library, loaded when the person first opens it (not part of the chat page's JavaScript).
const PromptPicker = lazy(() => import('../prompt-picker'), 'PromptPicker');

const bump = (n: number) => n + 1;

// Over 100 lines on purpose: the chat page's layout in one place (the list, the thread, the composer, the panels),
// its state in hooks of its own (use-conversation, use-turn-records).
export function Chat({ spaceId, agentId }: { spaceId: string; agentId: string }) {
  const [agent, setAgent] = useState<Agent | null>(null);
  const [missing, setMissing] = useState(false);
  const [draft, setDraft] = useState('');
  const [picking, setPicking] = useState(false);
  const [listVersion, listChanged] = useReducer(bump, 0);
  const [proposalsVersion, proposed] = useReducer(bump, 0);
  const [appNames, setAppNames] = useState<ReadonlyMap<string, string>>(new Map());
  const messageBox = useRef<HTMLTextAreaElement>(null);
  const base = `${CORE}/llm/${agentId}/conversation`;
  const chat = useConversation(agentId, base, {
    onTurnEnded: () => listChanged(1),
    onProposed: () => proposed(1),
  });
  const records = useTurnRecords(
    base,
    chat.conversationId,
    chat.messages,
    agent?.codeExecutionEnabled === true,
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
  }, [agentId]);

  if (missing)
    return (
      <section class="page">
        <h1>{t('notFound')}</h1>
        <p>{t('notFoundText')}</p>
      </section>
    );
  return (
    <div class="chat">
      <ConversationList
        base={base}
        current={chat.conversationId}
        version={listVersion}
        onOpen={chat.open}
        onError={chat.setError}
      />
      <section class="thread" aria-labelledby="agent-title">
        <header>
          <h1 id="agent-title">{agent?.name ?? t('loading')}</h1>
          {agent && (
            <a href={`/agent/${agent.id}/settings`} onClick={linkTo(`/agent/${agent.id}/settings`)}>
              {t('settings')}
            </a>
          )}
          {chat.incognito && <p class="badge incognito">{t('incognitoNote')}</p>}
          <span class="space-id" hidden>
            {spaceId}
          </span>
        </header>
        <AppViews
          agentId={agentId}
          onInsert={(text) => setDraft(text)}
          onApps={(apps) => setAppNames(new Map(apps.map((app) => [app.id, app.name])))}
        />
        <MessageList
          agentId={agentId}
          messagesPath={chat.conversationId ? `${base}/${chat.conversationId}/messages` : null}
          messages={chat.messages}
          busy={chat.busy}
          onRerun={(index, text) => void chat.rerunFrom(index, text)}
          onRegenerate={chat.regenerate}
          onDelete={(id) => void chat.deleteMessage(id)}
          onSwitch={(id) => void chat.switchTo(id)}
          onCite={chat.setCitation}
          details={(message, index) => (
            <AnswerDetails
              agentId={agentId}
              route={chat.conversationId && `${base}/${chat.conversationId}`}
              message={message}
              question={chat.messages[index - 1]}
              records={records}
              appNames={appNames}
              onInsert={(text) => setDraft(text)}
            />
          )}
        />
        {!chat.busy && chat.messages.at(-1)?.role === 'user' && (
          <p class="thinking" role="status">
            {t('thinking')}
          </p>
        )}
        <Proposals
          agentId={agentId}
          version={proposalsVersion}
          inline={new Set(chat.messages.flatMap((m) => m.memory?.proposals?.map((p) => p.id) ?? []))}
        />
        {chat.error && (
          <p role="alert" class="error">
            {chat.error}
          </p>
        )}
        <Composer
          draft={draft}
          onDraft={setDraft}
          box={messageBox}
          busy={chat.busy}
          incognito={chat.conversationId ? null : chat.incognito}
          onIncognito={chat.setIncognito}
          onSend={(text, attachments) => void chat.send(text, attachments)}
          onStop={chat.stop}
          onOpenPrompts={() => setPicking(true)}
        />
      </section>
      {picking && (
        <PromptPicker
          spaceId={agent?.spaceId ?? spaceId}
          onChoose={(text) => setDraft((current) => (current.trim() ? `${current}\n\n${text}` : text))}
          onClose={() => setPicking(false)}
          focusAfter={() => messageBox.current?.focus()}
        />
      )}
      {chat.citation && (
        <CitationPanel agentId={agentId} citation={chat.citation} onClose={() => chat.setCitation(null)} />
      )}
    </div>
  );
}
