// The sampling controls (temperature, top-p, top-k), each with its own switch: off sends nothing to the model (null),
// on sends the value, which is kept while the switch is off.
import { useState } from 'preact/hooks';
import { t, type Label } from '../../i18n';
import type { AgentDraft, SetDraft } from './agent-draft';

interface Control {
  readonly field: 'temperature' | 'topP' | 'topK';
  readonly label: Label;
  readonly min: number;
  readonly max: number;
  readonly step: number;
  readonly initial: number;
}

const CONTROLS: readonly Control[] = [
  { field: 'temperature', label: 'temperature', min: 0, max: 2, step: 0.1, initial: 0.7 },
  { field: 'topP', label: 'topP', min: 0.01, max: 1, step: 0.01, initial: 0.9 },
  { field: 'topK', label: 'topK', min: 1, max: 1000, step: 1, initial: 40 },
];

function SamplingControl({ control, value, set }: { control: Control; value: number | null; set: SetDraft }) {
  const [kept, setKept] = useState(value ?? control.initial);
  const id = `sampling-${control.field}`;
  return (
    <div class="sampling-control">
      <label class="check">
        <input
          type="checkbox"
          checked={value !== null}
          onChange={(e) => set({ [control.field]: (e.target as HTMLInputElement).checked ? kept : null })}
        />
        {t('useControl', { name: t(control.label) })}
      </label>
      <label for={id} class="visually-hidden">
        {t(control.label)}
      </label>
      <input
        id={id}
        type="number"
        min={control.min}
        max={control.max}
        step={control.step}
        disabled={value === null}
        value={value ?? kept}
        onInput={(e) => {
          const next = Number((e.target as HTMLInputElement).value);
          if (Number.isNaN(next)) return;
          setKept(next);
          set({ [control.field]: next });
        }}
      />
    </div>
  );
}

export function Sampling({ draft, set }: { draft: AgentDraft; set: SetDraft }) {
  return (
    <fieldset class="sampling">
      <legend>{t('sampling')}</legend>
      <p class="note">{t('samplingHint')}</p>
      {CONTROLS.map((control) => (
        <SamplingControl key={control.field} control={control} value={draft[control.field]} set={set} />
      ))}
    </fieldset>
  );
}
