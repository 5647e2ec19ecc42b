// The cited passage beside the conversation: the document, its section, the version the answer read and when the
// document last changed (and whether it has changed since), the passage (fetched from the document's content when
// the citation carries no text) and the cluster's summary.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api';
import { errorSentence } from '../../errors';
import { dateTime } from '../../dates';
import { t } from '../../i18n';
import type { Citation } from './types';

export function CitationPanel({
  agentId,
  citation,
  onClose,
}: {
  agentId: string;
  citation: Citation;
  onClose: () => void;
}) {
  const [passage, setPassage] = useState<string | null>(citation.text ?? null);
  const [document, setDocument] = useState<{
    contentHash: string;
    lastModified: string;
    indexedAt?: string | null;
  } | null>(null);
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    setDocument(null);
    void api<{ contentHash: string; lastModified: string; indexedAt?: string | null }>(
      'GET',
      `knowledge/${agentId}/documents/${citation.documentId}`,
    ).then(setDocument, () => undefined);
  }, [citation.documentId]);
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
        {t('sourceNamed', { n: String(citation.index), name: citation.documentName })}
      </h2>
      {citation.sectionPath.length > 0 && (
        <p class="section">
          {t('section')}: {citation.sectionPath.join(' › ')}
        </p>
      )}
      <p class="version">
        {citation.documentVersion !== undefined && t('citedVersion', { n: String(citation.documentVersion) })}
        {document && (
          <>
            {' · '}
            {document.indexedAt
              ? t('documentIndexedAt', { at: dateTime(document.indexedAt) })
              : t('documentChangedAt', { at: dateTime(document.lastModified) })}
            {citation.contentHash && document.contentHash !== citation.contentHash && (
              <strong> · {t('documentChangedSince')}</strong>
            )}
          </>
        )}
      </p>
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
