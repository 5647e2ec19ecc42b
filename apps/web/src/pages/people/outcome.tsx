// What an action on the people pages came to, shown beside it: a status line, or the refusal as a sentence.
import { useState } from 'preact/hooks';
import { t, type Label } from '../../i18n';
import { sentenceOf } from './errors';

/** A label, not a text: a German page shows it in German even when the language changed after it happened. */
export interface Outcome {
  readonly ok: boolean;
  readonly label: Label;
}

/** The last outcome and a runner that records it: `run(promise, successLabel)`; `read(promise)` for loads. */
export function useOutcome() {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const run = async <T,>(work: Promise<T>, success?: Label): Promise<T | undefined> => {
    setOutcome(null);
    try {
      const result = await work;
      if (success) setOutcome({ ok: true, label: success });
      return result;
    } catch (error) {
      setOutcome({ ok: false, label: sentenceOf(error) });
      return undefined;
    }
  };
  /** A read: it keeps what the last action came to, and only a failure replaces it. */
  const read = <T,>(work: Promise<T>): Promise<T | undefined> =>
    work.catch((error: unknown) => {
      setOutcome({ ok: false, label: sentenceOf(error) });
      return undefined;
    });
  return { outcome, run, read };
}

export function OutcomeLine({ outcome, id }: { outcome: Outcome | null; id?: string }) {
  if (!outcome) return null;
  return outcome.ok ? (
    <p role="status" class="note" id={id}>
      {t(outcome.label)}
    </p>
  ) : (
    <p role="alert" class="error" id={id}>
      {t(outcome.label)}
    </p>
  );
}
