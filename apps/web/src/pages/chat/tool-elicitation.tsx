// The form under a streaming answer when a tool's server asks the person something while the call runs (MCP
// elicitation): the tool and its App, the server's question, a field per property of the requested schema, and Send,
// Decline and Dismiss. The call waits on the server until the person answers (or the question expires); the form then
// says what was done. Focus moves to its first field and the question is announced, as the approval prompt's is.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api';
import { errorSentence } from '../../errors';
import { t, type Label } from '../../i18n';
import { contentOf, fieldsOf, type Field } from './elicitation-fields';
import { toolNaming } from './tool-calls';
import type { ElicitationAsked } from './types';

type Action = 'accept' | 'decline' | 'cancel';
type Values = Record<string, Field['initial']>;

interface FieldProps {
  readonly field: Field;
  /** The input's id: its label's, hint's and group's ids derive from it. */
  readonly id: string;
  readonly value: Field['initial'];
  readonly set: (value: Field['initial']) => void;
}

// Outlives the form: the stored answer that replaces the streamed one keeps saying what the person did.
const answered = new Map<string, Action>();

const REFUSALS: Readonly<Record<string, Label>> = {
  elicitation_not_found: 'elicitationGone',
  conversation_not_found: 'elicitationGone',
  invalid_elicitation_content: 'elicitationUnfit',
};

const INPUT_TYPES: Partial<Record<Field['kind'], 'text' | 'email' | 'url' | 'date' | 'number'>> = {
  text: 'text',
  email: 'email',
  url: 'url',
  date: 'date',
  number: 'number',
  integer: 'number',
};

function FieldInput({ field, id, value, set }: FieldProps) {
  const described = field.description ? `${id}-hint` : undefined;
  if (field.kind === 'boolean')
    return (
      <input
        id={id}
        type="checkbox"
        checked={value === true}
        aria-describedby={described}
        onChange={(e) => set(e.currentTarget.checked)}
      />
    );
  if (field.kind === 'choice')
    return (
      <select
        id={id}
        required={field.required}
        aria-describedby={described}
        value={String(value)}
        onChange={(e) => set(e.currentTarget.value)}
      >
        {!field.required && <option value="">{t('elicitationChoose')}</option>}
        {field.choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
    );
  if (field.kind === 'choices') {
    const chosen = value as readonly string[];
    return (
      <span
        class="elicitation-choices"
        role="group"
        aria-labelledby={`${id}-label`}
        aria-describedby={described}
      >
        {field.choices.map((choice) => (
          <label key={choice.value}>
            <input
              type="checkbox"
              checked={chosen.includes(choice.value)}
              onChange={(e) =>
                set(
                  e.currentTarget.checked
                    ? [...chosen, choice.value]
                    : chosen.filter((other) => other !== choice.value),
                )
              }
            />{' '}
            {choice.label}
          </label>
        ))}
      </span>
    );
  }
  return (
    <input
      id={id}
      // Preact types each input type's attributes apart; these all take the ones given here.
      type={(INPUT_TYPES[field.kind] ?? 'text') as 'text'}
      required={field.required}
      aria-describedby={described}
      value={String(value)}
      min={field.min}
      max={field.max}
      minLength={field.minLength}
      maxLength={field.maxLength}
      step={field.kind === 'number' ? 'any' : undefined}
      onInput={(e) => set(e.currentTarget.value)}
    />
  );
}

/** A field with its label (marked when required) and the schema's description as its hint. */
function FieldRow({ field, id, value, set }: FieldProps) {
  return (
    <div class={`elicitation-field ${field.kind}`}>
      <label id={`${id}-label`} for={field.kind === 'choices' ? undefined : id}>
        {field.label}
        {field.required && <span class="muted"> ({t('elicitationRequired')})</span>}
      </label>
      <FieldInput field={field} id={id} value={value} set={set} />
      {field.description && (
        <small id={`${id}-hint`} class="note">
          {field.description}
        </small>
      )}
    </div>
  );
}

function ElicitationForm({
  route,
  asked,
  appName,
}: {
  route: string;
  asked: ElicitationAsked;
  appName: (appId: string) => string;
}) {
  const fields = fieldsOf(asked.requestedSchema);
  const [values, setValues] = useState<Values>(() =>
    Object.fromEntries(fields.map((f) => [f.key, f.initial])),
  );
  const [done, setDone] = useState<Action | null>(answered.get(asked.elicitationId) ?? null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (!answered.has(asked.elicitationId))
      form.current?.querySelector<HTMLElement>('input, select, button')?.focus();
  }, [asked.elicitationId]);
  const { tool, appId } = toolNaming(asked.name);
  const answer = async (action: Action) => {
    setBusy(true);
    setError(null);
    // Kept before the server answers: the tool goes on as soon as it has the answer, and the stored answer that
    // replaces this one can mount before this request returns.
    answered.set(asked.elicitationId, action);
    try {
      await api('POST', `${route}/elicitations/${encodeURIComponent(asked.elicitationId)}`, {
        action,
        ...(action === 'accept' ? { content: contentOf(fields, values) } : {}),
      });
      setDone(action);
    } catch (failure) {
      answered.delete(asked.elicitationId);
      setError(errorSentence(failure, REFUSALS));
    } finally {
      setBusy(false);
    }
  };
  const base = `elicitation-${asked.elicitationId}`;
  const said: Record<Action, Label> = {
    accept: 'elicitationSent',
    decline: 'elicitationDeclined',
    cancel: 'elicitationCancelled',
  };
  return (
    <section
      class="tool-approval tool-elicitation"
      aria-labelledby={`${base}-title`}
      data-answer={done ?? 'waiting'}
    >
      <p id={`${base}-title`} role="status">
        {done === null ? t('elicitationAsk', { tool }) : t(said[done], { tool })}
        {appId && <span class="muted"> {t('toolFromApp', { app: appName(appId) })}</span>}
      </p>
      {done === null && (
        <form
          ref={form}
          onSubmit={(e) => {
            e.preventDefault();
            void answer('accept');
          }}
        >
          <p class="elicitation-message">{asked.message}</p>
          {fields.map((field) => (
            <FieldRow
              key={field.key}
              id={`${base}-${field.key}`}
              field={field}
              value={values[field.key] ?? field.initial}
              set={(value) => setValues((all) => ({ ...all, [field.key]: value }))}
            />
          ))}
          <div class="actions">
            <button type="submit" disabled={busy}>
              {t('elicitationSend')}
            </button>
            <button type="button" disabled={busy} onClick={() => void answer('decline')}>
              {t('elicitationDecline')}
            </button>
            <button type="button" disabled={busy} onClick={() => void answer('cancel')}>
              {t('elicitationCancel')}
            </button>
          </div>
        </form>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}

export function ToolElicitations({
  route,
  elicitations,
  appNames,
}: {
  /** The conversation's route. */
  route: string;
  elicitations: readonly ElicitationAsked[];
  appNames: ReadonlyMap<string, string>;
}) {
  const appName = (appId: string) => appNames.get(appId) ?? appId;
  return (
    <>
      {elicitations.map((asked) => (
        <ElicitationForm key={asked.elicitationId} route={route} asked={asked} appName={appName} />
      ))}
    </>
  );
}
