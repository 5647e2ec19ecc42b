// What the limit sections share: a form that sets a limit (tokens and/or cost, and the overage policy for a week or
// the window of a key), a table of the limits set with what each used and when it resets, and a remove button.
import { useEffect, useState } from 'preact/hooks';
import { fromNow, fullDateTime } from '../../dates';
import { t, type Label } from '../../i18n';
import { OutcomeLine, type Outcome } from '../people/outcome';

/** What the form sends: `overage` for a person's or a Space's week, `window` for an API key. */
export type LimitBody =
  | { tokens: number | null; costUsd: number | null; overage: 'block' | 'allow' }
  | { tokens: number | null; costUsd: number | null; window: 'day' | 'week' | 'month' };

const number = (value: string) => (value.trim() === '' ? null : Number(value));

/** A positive amount (tokens or USD), empty for none. */
function AmountField({
  label,
  step,
  value,
  onInput,
}: {
  label: string;
  step: number;
  value: string;
  onInput: (value: string) => void;
}) {
  return (
    <label>
      {label}
      <input
        type="number"
        min={step}
        step={step}
        value={value}
        onInput={(e) => onInput((e.target as HTMLInputElement).value)}
      />
    </label>
  );
}

export function LimitForm({
  subjects,
  subjectLabel,
  kind,
  outcome,
  onSave,
  idPrefix,
}: {
  /** Whom a limit may be set for; one alone is not offered as a choice. */
  subjects: readonly { id: string; name: string }[];
  subjectLabel: string;
  kind: 'overage' | 'window';
  outcome: Outcome | null;
  onSave: (subjectId: string, body: LimitBody) => Promise<void>;
  idPrefix: string;
}) {
  const [subject, setSubject] = useState('');
  const [tokens, setTokens] = useState('');
  const [cost, setCost] = useState('');
  const [choice, setChoice] = useState(kind === 'overage' ? 'block' : 'week');
  const [missing, setMissing] = useState(false);
  // A new outcome (a limit set or removed) replaces the note about a missing amount.
  useEffect(() => setMissing(false), [outcome]);
  const chosen = subjects.length === 1 ? subjects[0]!.id : subject;
  const submit = async (event: Event) => {
    event.preventDefault();
    const amounts = { tokens: number(tokens), costUsd: number(cost) };
    setMissing(amounts.tokens === null && amounts.costUsd === null);
    if (amounts.tokens === null && amounts.costUsd === null) return;
    const body = kind === 'overage' ? { ...amounts, overage: choice } : { ...amounts, window: choice };
    await onSave(chosen, body as LimitBody);
  };
  const choices = kind === 'overage' ? ['block', 'allow'] : ['day', 'week', 'month'];
  const errorId = `${idPrefix}-error`;
  return (
    <form class="inline-form limit-form" onSubmit={(e) => void submit(e)} aria-describedby={errorId}>
      {subjects.length !== 1 && (
        <label>
          {subjectLabel}
          <select
            required
            value={subject}
            onChange={(e) => setSubject((e.target as HTMLSelectElement).value)}
          >
            <option value="">{t('usageChoose')}</option>
            {subjects.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <AmountField label={t('limitTokens')} step={1} value={tokens} onInput={setTokens} />
      <AmountField label={t('limitCostUsd')} step={0.01} value={cost} onInput={setCost} />
      <label>
        {kind === 'overage' ? t('atTheLimit') : t('limitWindow')}
        <select value={choice} onChange={(e) => setChoice((e.target as HTMLSelectElement).value)}>
          {choices.map((c) => (
            <option key={c} value={c}>
              {t((kind === 'overage' ? `overage_${c}` : `window_${c}`) as Label)}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">{t('setLimit')}</button>
      <div id={errorId}>
        {missing ? (
          <p role="alert" class="error">
            {t('limitNeedsAmount')}
          </p>
        ) : (
          <OutcomeLine outcome={outcome} />
        )}
      </div>
    </form>
  );
}

export interface LimitRow {
  readonly id: string;
  readonly name: string;
  readonly limit: string | null;
  readonly used: string;
  readonly resetsAt: string | null;
}

export function LimitTable({
  rows,
  caption,
  onRemove,
}: {
  rows: readonly LimitRow[];
  caption: string;
  onRemove: (id: string) => void;
}) {
  if (rows.length === 0) return <p class="note">{t('noLimitsSet')}</p>;
  return (
    <table class="limits">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{t('limitFor')}</th>
          <th scope="col">{t('usageLimit')}</th>
          <th scope="col">{t('spent')}</th>
          <th scope="col">{t('usageResets')}</th>
          <th scope="col">
            <span class="visually-hidden">{t('usageActions')}</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id}>
            <th scope="row">{row.name}</th>
            <td data-label={t('usageLimit')}>{row.limit}</td>
            <td data-label={t('spent')}>{row.used}</td>
            <td data-label={t('usageResets')}>
              {row.resetsAt && (
                <time dateTime={row.resetsAt} title={fullDateTime(row.resetsAt)}>
                  {fromNow(row.resetsAt)}
                </time>
              )}
            </td>
            <td>
              <button
                type="button"
                class="secondary"
                aria-label={t('removeLimitOf', { name: row.name })}
                onClick={() => onRemove(row.id)}
              >
                {t('removeLimit')}
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
