// The "Why this answer" dialog (native <dialog>: focus stays inside, Escape closes) with the answer's provenance
// (GET …/messages/{messageId}/provenance), fetched when it opens; a chunk of its own, loaded on the first opening.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api';
import { errorSentence } from '../../errors';
import { t } from '../../i18n';
import { ProvenanceView, type Provenance } from './provenance-view';
import type { ChatMessage } from './types';
import type { CodeRun } from './use-turn-records';

export function WhyDialog({
  agentId,
  route,
  answer,
  runs,
  onClose,
}: {
  agentId: string;
  /** The conversation's route. */
  route: string;
  answer: ChatMessage;
  runs: readonly CodeRun[];
  onClose: () => void;
}) {
  const [provenance, setProvenance] = useState<Provenance | null>(null);
  const [error, setError] = useState<string | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = `why-${answer.id}`;
  useEffect(() => {
    dialog.current?.showModal();
    void api<Provenance>('GET', `${route}/messages/${answer.id}/provenance`).then(
      setProvenance,
      (e: unknown) => setError(errorSentence(e)),
    );
  }, []);
  return (
    <dialog ref={dialog} class="why-dialog" aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>{t('whyThisAnswer')}</h2>
      {error ? (
        <p role="alert" class="error">
          {error}
        </p>
      ) : provenance ? (
        <ProvenanceView
          agentId={agentId}
          provenance={provenance}
          cited={answer.citations.map((c) => c.index)}
          runs={runs}
        />
      ) : (
        <p role="status">{t('loading')}</p>
      )}
      <form method="dialog" class="dialog-actions">
        <button type="submit" autofocus>
          {t('close')}
        </button>
      </form>
    </dialog>
  );
}
