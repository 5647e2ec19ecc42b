// "Why this answer": a button under a stored answer that opens the dialog of what produced it (why-dialog.tsx, loaded
// on the first opening: the chat's first JavaScript does not carry it).
import { useState } from 'preact/hooks';
import { t } from '../../i18n';
import { lazy } from '../../lazy';
import type { ChatMessage } from './types';
import type { CodeRun } from './use-turn-records';

const WhyDialog = lazy(() => import('./why-dialog'), 'WhyDialog');

export function WhyAnswer(props: {
  agentId: string;
  /** The conversation's route. */
  route: string;
  answer: ChatMessage;
  runs: readonly CodeRun[];
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" class="why-answer" aria-haspopup="dialog" onClick={() => setOpen(true)}>
        {t('whyThisAnswer')}
      </button>
      {open && <WhyDialog {...props} onClose={() => setOpen(false)} />}
    </>
  );
}
