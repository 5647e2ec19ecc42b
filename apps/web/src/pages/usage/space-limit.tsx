// A Space's weekly spend limit on its page: the week (its limit, what every call for the Space used, when it resets)
// for whoever sees the Space; its owners and admins set or remove the limit, the others read why they may not.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { errorLabel, errorSentence } from '../../errors';
import { t, type Label } from '../../i18n';
import type { Outcome } from '../people/outcome';
import { LimitForm, type LimitBody } from './limit-kit';
import type { Week } from './usage-data';
import { WeekWindow } from './week';

/** A limit an admin set: its Space's owners may not lift it. */
const REFUSALS: Readonly<Record<string, Label>> = { spend_limit_set_by_admin: 'refusedLimitSetByAdmin' };

export function SpaceLimit({
  space,
  mayChange,
}: {
  space: { id: string; name: string };
  mayChange: boolean;
}) {
  const path = `cost-control/spaces/${encodeURIComponent(space.id)}`;
  const [week, setWeek] = useState<Week | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  useEffect(() => void api<Week>('GET', path).then(setWeek, setError), [path]);
  const change = async (work: Promise<Week>, success: Label) => {
    setOutcome(null);
    try {
      setWeek(await work);
      setOutcome({ ok: true, label: success });
    } catch (refusal) {
      setOutcome({ ok: false, label: errorLabel(refusal, REFUSALS) });
    }
  };
  return (
    <section aria-labelledby="space-limit-title" class="usage space-limit">
      <h2 id="space-limit-title">{t('spaceSpendLimit')}</h2>
      {error !== null && (
        <p role="alert" class="error">
          {errorSentence(error)}
        </p>
      )}
      {week && <WeekWindow week={week} title={t('thisWeekOfSpace')} level={3} />}
      {mayChange ? (
        <>
          <LimitForm
            subjects={[space]}
            subjectLabel={t('usageSpace')}
            kind="overage"
            outcome={outcome}
            idPrefix="space-limit"
            onSave={(_, body: LimitBody) => change(api<Week>('PUT', path, body), 'limitSaved')}
          />
          {week?.limit && (
            <button
              type="button"
              class="secondary"
              onClick={() => void change(api<Week>('DELETE', path), 'limitRemoved')}
            >
              {t('removeLimit')}
            </button>
          )}
        </>
      ) : (
        <p class="readonly-reason">{t('spaceLimitOwnersOnly')}</p>
      )}
    </section>
  );
}
