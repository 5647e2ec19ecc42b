// One replayed turn side by side: the question, the recorded answer and the new one with the words that differ marked
// (removed from the old, added in the new), citations kept, lost and added, and what each cost.
import { diffWords } from 'diff';
import { useMemo } from 'preact/hooks';
import { language, t } from '../../i18n';

interface Cited {
  readonly documentName: string;
  readonly documentVersion: number;
  readonly start: number;
  readonly end: number;
}
interface Answer {
  readonly model: string;
  readonly content: string | null;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number | null;
}
export interface Turn {
  readonly messageId: string;
  readonly at: string;
  readonly question: string | null;
  readonly old: Answer;
  readonly new: Answer | null;
  readonly error: string | null;
  readonly citationsKept: readonly Cited[];
  readonly citationsLost: readonly Cited[];
  readonly citationsAdded: readonly Cited[];
  readonly promptVerified: boolean;
}

const money = (value: number | null) =>
  value === null
    ? '—'
    : new Intl.NumberFormat(language(), {
        style: 'currency',
        currency: 'USD',
        maximumFractionDigits: 4,
      }).format(value);

type Parts = ReturnType<typeof diffWords>;

/** One side's text: the common words, and this side's own marked (the old side's removed, the new side's added). */
function Marked({ parts, own }: { parts: Parts; own: 'removed' | 'added' }) {
  return (
    <p class="diff">
      {parts.map((part, index) =>
        own === 'removed' && part.removed ? (
          <del key={index}>
            <span class="visually-hidden">{t('auditRemoved')} </span>
            {part.value}
          </del>
        ) : own === 'added' && part.added ? (
          <ins key={index}>
            <span class="visually-hidden">{t('auditAdded')} </span>
            {part.value}
          </ins>
        ) : part.added || part.removed ? null : (
          <span key={index}>{part.value}</span>
        ),
      )}
    </p>
  );
}

function Side({
  answer,
  title,
  parts,
  own,
}: {
  answer: Answer;
  title: string;
  parts: Parts;
  own: 'removed' | 'added';
}) {
  return (
    <article class="replay-side" aria-label={`${title}: ${answer.model}`}>
      <h4>
        {title} <code>{answer.model}</code>
      </h4>
      <p class="note">
        {t('replayFigures', {
          tokens: String(answer.inputTokens + answer.outputTokens),
          cost: money(answer.costUsd),
        })}
      </p>
      <Marked parts={parts} own={own} />
    </article>
  );
}

const cited = (list: readonly Cited[]) =>
  list.map((c) => `${c.documentName} v${c.documentVersion} (${c.start}–${c.end})`).join(', ') || '—';

export function ReplayTurn({ turn }: { turn: Turn }) {
  const parts = useMemo(
    () => diffWords(turn.old.content ?? '', turn.new?.content ?? ''),
    [turn.old.content, turn.new?.content],
  );
  return (
    <li class="replay-turn">
      <h3>{turn.question ?? t('replayQuestionErased')}</h3>
      {!turn.promptVerified && <p class="note">{t('replayPromptUnverified')}</p>}
      {turn.error && (
        <p class="error" role="note">
          {t('replayTurnFailed', { reason: turn.error })}
        </p>
      )}
      <div class="side-by-side">
        <Side answer={turn.old} title={t('replayOld')} parts={parts} own="removed" />
        {turn.new && <Side answer={turn.new} title={t('replayNew')} parts={parts} own="added" />}
      </div>
      <dl class="replay-citations">
        <dt>{t('replayKept')}</dt>
        <dd>{cited(turn.citationsKept)}</dd>
        <dt>{t('replayLost')}</dt>
        <dd>{cited(turn.citationsLost)}</dd>
        <dt>{t('replayAdded')}</dt>
        <dd>{cited(turn.citationsAdded)}</dd>
      </dl>
    </li>
  );
}
