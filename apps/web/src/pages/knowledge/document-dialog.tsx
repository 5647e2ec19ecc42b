// One document's details in a modal (the native <dialog>: focus stays inside, Escape closes): its ingestion log, the
// text extracted from it and its chunks with their section paths, one tab each, read when the tab is opened; and the
// answers that used it, as far as the person may see them.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api';
import { dateTime } from '../../dates';
import { t, type Label } from '../../i18n';
import { knowledgeError, knowledgePath, type KnowledgeDocument } from './knowledge-kit';
import { AnswersUsing } from '../provenance/answers-using';

interface LogEntry {
  readonly at: string;
  readonly event: string;
  readonly details: Record<string, unknown>;
}

interface Chunk {
  readonly index: number;
  readonly sectionPath: readonly string[];
  readonly text: string;
}

type Tab = 'log' | 'content' | 'chunks';
const TABS: readonly (readonly [Tab, Label])[] = [
  ['log', 'knLog'],
  ['content', 'knContent'],
  ['chunks', 'knChunks'],
];

const EVENTS: Readonly<Record<string, Label>> = {
  DocumentAdded: 'knEventAdded',
  DocumentRenamed: 'knEventRenamed',
  DocumentContentReplaced: 'knEventReplaced',
  DocumentTagAttached: 'knEventTagAttached',
  DocumentTagDetached: 'knEventTagDetached',
  DocumentReprocessingRequested: 'knEventReprocess',
  DocumentProcessingStarted: 'knEventStarted',
  DocumentReady: 'knEventReady',
  DocumentProcessingSkipped: 'knEventSkipped',
  DocumentFailed: 'knEventFailed',
  DocumentTagsIndexed: 'knEventIndexed',
};

/** The facts of a log entry worth reading (version, attempt, chunk count, a failure's reason), as `key: value`. */
const facts = (details: Record<string, unknown>): string =>
  Object.entries(details)
    .filter(
      ([, value]) => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean',
    )
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(' · ');

/** One tab's answer, read when it is shown (the dialog keys it by tab: each tab's answer has its own shape). */
function TabBody({ agentId, document, tab }: { agentId: string; document: KnowledgeDocument; tab: Tab }) {
  const [answer, setAnswer] = useState<unknown>(null);
  const [error, setError] = useState<Label | null>(null);
  useEffect(() => {
    api<unknown>('GET', knowledgePath(agentId, `documents/${encodeURIComponent(document.id)}/${tab}`)).then(
      setAnswer,
      (failure: unknown) => setError(knowledgeError(failure)),
    );
  }, [document.id]);
  if (error) return <p class="error">{t(error)}</p>;
  if (answer === null) return <p>{t('loading')}</p>;
  if (tab === 'content') return <pre class="kn-text">{String(answer)}</pre>;
  if (tab === 'chunks')
    return (
      <ol class="kn-chunks">
        {(answer as { chunks: Chunk[] }).chunks.map((chunk) => (
          <li key={chunk.index}>
            <p class="kn-section">
              {chunk.sectionPath.length > 0 ? chunk.sectionPath.join(' › ') : t('knNoSection')}
            </p>
            <pre class="kn-text">{chunk.text}</pre>
          </li>
        ))}
      </ol>
    );
  return (
    <ol class="kn-log">
      {(answer as { entries: LogEntry[] }).entries.map((entry, i) => (
        <li key={i}>
          <time dateTime={entry.at}>{dateTime(entry.at)}</time>{' '}
          <strong>{EVENTS[entry.event] ? t(EVENTS[entry.event]!) : entry.event}</strong>
          {facts(entry.details) && <code>{facts(entry.details)}</code>}
        </li>
      ))}
    </ol>
  );
}

export function DocumentDialog({
  agentId,
  document,
  onClose,
}: {
  agentId: string;
  document: KnowledgeDocument;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [tab, setTab] = useState<Tab>('log');
  useEffect(() => dialog.current?.showModal(), []);
  const move = (event: KeyboardEvent) => {
    const at = TABS.findIndex(([id]) => id === tab);
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    const next = TABS[(at + step + TABS.length) % TABS.length]![0];
    setTab(next);
    dialog.current?.querySelector<HTMLElement>(`#kn-tab-${next}`)?.focus();
  };
  return (
    <dialog ref={dialog} class="kn-dialog" aria-labelledby="kn-dialog-title" onClose={onClose}>
      <h2 id="kn-dialog-title">{document.name}</h2>
      <div role="tablist" aria-label={t('knDetails')} onKeyDown={move}>
        {TABS.map(([id, label]) => (
          <button
            key={id}
            id={`kn-tab-${id}`}
            type="button"
            role="tab"
            class="kn-tab"
            aria-selected={tab === id}
            aria-controls="kn-tab-panel"
            tabIndex={tab === id ? 0 : -1}
            onClick={() => setTab(id)}
          >
            {t(label)}
          </button>
        ))}
      </div>
      <section id="kn-tab-panel" role="tabpanel" aria-labelledby={`kn-tab-${tab}`} tabIndex={0}>
        <TabBody key={tab} agentId={agentId} document={document} tab={tab} />
      </section>
      <AnswersUsing source={`document:${document.id}`} label={document.name} />
      <form method="dialog" class="dialog-actions">
        <button type="submit">{t('close')}</button>
      </form>
    </dialog>
  );
}
