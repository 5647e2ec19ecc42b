// What a person does to the selected documents at once: download them as one zip, add or remove one of the Agent's
// tags, process them again (forced: even when unchanged), delete them (after a confirmation). The API answers per
// document; the ones that failed are listed with their reason. The actions show once something is selected.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { t, type Label } from '../../i18n';
import { ConfirmDialog } from '../confirm-dialog';
import { ErrorLine } from './error-line';
import {
  codeLabel,
  knowledgeError,
  knowledgePath,
  saveDownload,
  type KnowledgeDocument,
  type Tag,
} from './knowledge-kit';
import { TagSelect } from './tag-chip';

type Action = 'addTag' | 'removeTag' | 'reprocess' | 'forceReprocess' | 'delete';

interface BulkAnswer {
  readonly results: { documentId: string; ok: boolean; error?: { code: string; message: string } }[];
}

const DONE: Readonly<Record<Action, Label>> = {
  addTag: 'knBulkTagged',
  removeTag: 'knBulkUntagged',
  reprocess: 'knBulkReprocessed',
  forceReprocess: 'knBulkReprocessed',
  delete: 'knBulkDeleted',
};

/** Labels and values, not texts: the sentences follow a change of language. */
interface Outcome {
  readonly done: Label;
  readonly count: number;
  readonly total: number;
  readonly failures: readonly { readonly name: string; readonly label: Label }[];
}

interface Props {
  readonly agentId: string;
  readonly documents: readonly KnowledgeDocument[];
  readonly selected: ReadonlySet<string>;
  /** null: tags are not shown at this level. */
  readonly tags: readonly Tag[] | null;
  readonly readOnly: boolean;
  readonly onDone: () => void;
}

// Over 100 lines on purpose: the selection's actions share its state, the confirmation and the per-document results.
export function BulkBar({ agentId, documents, selected, tags, readOnly, onDone }: Props) {
  const [tagId, setTagId] = useState('');
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [error, setError] = useState<Label | null>(null);
  const [confirming, setConfirming] = useState(false);
  const ids = documents.filter((d) => selected.has(d.id)).map((d) => d.id);
  const nameOf = (id: string) => documents.find((d) => d.id === id)?.name ?? id;
  const none = ids.length === 0;

  const run = async (action: Action) => {
    setError(null);
    setOutcome(null);
    try {
      const body = {
        action,
        documentIds: ids,
        ...(action === 'addTag' || action === 'removeTag' ? { tagId } : {}),
      };
      const answer = await api<BulkAnswer>('POST', knowledgePath(agentId, 'documents/bulk'), body);
      const failed = answer.results.filter((r) => !r.ok);
      setOutcome({
        done: DONE[action],
        count: answer.results.length - failed.length,
        total: answer.results.length,
        failures: failed.map((r) => ({
          name: nameOf(r.documentId),
          label: r.error ? codeLabel(r.error) : 'errorGeneric',
        })),
      });
      onDone();
    } catch (failure) {
      setError(knowledgeError(failure));
    }
  };
  const download = () => {
    setError(null);
    saveDownload(knowledgePath(agentId, 'documents/download'), { documentIds: ids }, 'documents.zip').catch(
      (failure: unknown) => setError(knowledgeError(failure)),
    );
  };

  return (
    <div class="kn-bulk" role="group" aria-label={t('knBulk')}>
      <p class="kn-selected">
        {none
          ? t(readOnly ? 'knSelectHintRead' : 'knSelectHint')
          : t('knSelected', { count: String(ids.length) })}
      </p>
      {!none && (
        <>
          <button type="button" onClick={download}>
            {t('knDownloadSelected')}
          </button>
          {!readOnly && (
            <>
              {tags && tags.length > 0 && (
                <span class="kn-bulk-tag">
                  <label for="kn-bulk-tag">{t('knBulkTag')}</label>
                  <TagSelect
                    id="kn-bulk-tag"
                    tags={tags}
                    placeholder={t('knChooseTag')}
                    value={tagId}
                    onPick={setTagId}
                  />
                  <button type="button" disabled={!tagId} onClick={() => void run('addTag')}>
                    {t('knAddTag')}
                  </button>
                  <button type="button" disabled={!tagId} onClick={() => void run('removeTag')}>
                    {t('knRemoveTag')}
                  </button>
                </span>
              )}
              <button type="button" onClick={() => void run('reprocess')}>
                {t('knReprocess')}
              </button>
              <button type="button" onClick={() => void run('forceReprocess')}>
                {t('knForceReprocess')}
              </button>
              <button type="button" class="danger" onClick={() => setConfirming(true)}>
                {t('knDeleteSelected')}
              </button>
            </>
          )}
        </>
      )}
      <ErrorLine label={error} />
      {outcome && (
        <div role="status" class="kn-outcome">
          <p>{t(outcome.done, { count: String(outcome.count), total: String(outcome.total) })}</p>
          {outcome.failures.length > 0 && (
            <ul class="error" aria-label={t('knBulkFailures')}>
              {outcome.failures.map(({ name, label }) => (
                <li key={name}>
                  {name}: {t(label)}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {confirming && (
        <ConfirmDialog
          title={t('knDeleteSelectedTitle', { count: String(ids.length) })}
          text={t('knDeleteSelectedText')}
          confirm={t('delete')}
          onConfirm={() => void run('delete')}
          onClose={() => setConfirming(false)}
        />
      )}
    </div>
  );
}
