// The documents of one level (an Agent's own, its Space's, Global), addressed through one Agent: upload, the list
// read again every second while a document is on its way (so Pending → Processing → Ready/Failed shows without a
// reload), details and bulk actions on a selection; where tags are shown, the Agent's tags on each document.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api';
import { t, type Label } from '../../i18n';
import type { List } from '../../state';
import { ErrorLine } from './error-line';
import { BulkBar } from './bulk-bar';
import { DocumentDialog } from './document-dialog';
import { DocumentList } from './document-list';
import {
  isUnderWay,
  knowledgeError,
  knowledgePath,
  type KnowledgeDocument,
  type Scope,
  type Tag,
} from './knowledge-kit';
import { UploadZone } from './upload-zone';

export interface LevelProps {
  /** The Agent the API is addressed through. */
  readonly agentId: string;
  readonly scope: Scope;
  /** Why the person may only read this level; null: they may change it. */
  readonly readOnlyReason: string | null;
  /** The Agent's tags (tags are per Agent: shown where the page is the Agent's own); null: no tags at this level. */
  readonly tags: readonly Tag[] | null;
}

export function KnowledgeArea({ agentId, scope, readOnlyReason, tags }: LevelProps) {
  const readOnly = readOnlyReason !== null;
  const [documents, setDocuments] = useState<readonly KnowledgeDocument[] | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [details, setDetails] = useState<KnowledgeDocument | null>(null);
  const [error, setError] = useState<Label | null>(null);
  const showError = (failure: unknown) => setError(knowledgeError(failure));

  // The level shown now: an answer for a level left meanwhile is dropped.
  const shown = useRef('');
  shown.current = `${agentId}/${scope}`;
  const load = () => {
    const asked = shown.current;
    return api<List<KnowledgeDocument>>(
      'GET',
      knowledgePath(agentId, `documents?scope=${scope}&limit=200`),
    ).then((list) => {
      if (asked !== shown.current) return;
      setDocuments(list.data);
      setSelected((before) => new Set(list.data.filter((d) => before.has(d.id)).map((d) => d.id)));
    }, showError);
  };
  useEffect(() => {
    setDocuments(null);
    void load();
  }, [agentId, scope]);
  useEffect(() => {
    if (!documents?.some((d) => isUnderWay(d.status))) return;
    const timer = setTimeout(() => void load(), 1000);
    return () => clearTimeout(timer);
  }, [documents]);

  return (
    <div class="kn-level">
      {readOnly ? (
        <p class="readonly-reason">{readOnlyReason}</p>
      ) : (
        <UploadZone agentId={agentId} scope={scope} onUploaded={() => void load()} />
      )}
      <ErrorLine label={error} />
      {documents === null ? (
        <p>{t('loading')}</p>
      ) : (
        <>
          {documents.length > 0 && (
            <BulkBar
              agentId={agentId}
              documents={documents}
              selected={selected}
              tags={tags}
              readOnly={readOnly}
              onDone={() => void load()}
            />
          )}
          <DocumentList
            agentId={agentId}
            documents={documents}
            tags={tags}
            readOnly={readOnly}
            selected={selected}
            onSelect={setSelected}
            onDetails={setDetails}
            onChanged={() => void load()}
            onError={showError}
          />
        </>
      )}
      {details && <DocumentDialog agentId={agentId} document={details} onClose={() => setDetails(null)} />}
    </div>
  );
}
