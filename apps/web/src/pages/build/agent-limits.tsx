// The numbers of an Agent that fall back to the instance's when left empty: the tokens of history a conversation turn
// sends before the oldest is compacted, and the public embed's abuse limits.
import { t, type Label } from '../../i18n';
import type { EmbedLimits } from './build-kit';
import type { AgentDraft, SetDraft } from './agent-draft';

function OptionalNumber({
  label,
  value,
  min,
  max,
  step = 1,
  onChange,
}: {
  label: Label;
  value: number | null;
  min: number;
  max: number;
  step?: number;
  onChange: (value: number | null) => void;
}) {
  return (
    <label>
      {t(label)}
      <input
        type="number"
        min={min}
        max={max}
        step={step}
        value={value ?? ''}
        placeholder={t('instanceDefault')}
        onInput={(e) => {
          const text = (e.target as HTMLInputElement).value;
          onChange(text === '' ? null : Number(text));
        }}
      />
    </label>
  );
}

export function TokenBudget({ draft, set }: { draft: AgentDraft; set: SetDraft }) {
  return (
    <OptionalNumber
      label="tokenBudget"
      value={draft.conversationTokenBudget}
      min={256}
      max={2_000_000}
      onChange={(conversationTokenBudget) => set({ conversationTokenBudget })}
    />
  );
}

const LIMITS: readonly { field: keyof EmbedLimits; label: Label; max: number; step: number }[] = [
  { field: 'visitorMessagesPerMinute', label: 'visitorMessagesPerMinute', max: 10_000, step: 1 },
  { field: 'agentMessagesPerMinute', label: 'agentMessagesPerMinute', max: 1_000_000, step: 1 },
  { field: 'dailyCostUsd', label: 'dailyCostUsd', max: 1_000_000, step: 0.01 },
];

export function EmbedLimitFields({ draft, set }: { draft: AgentDraft; set: SetDraft }) {
  return (
    <>
      <p class="note">{t('embedLimitsHint')}</p>
      {LIMITS.map(({ field, label, max, step }) => (
        <OptionalNumber
          key={field}
          label={label}
          value={draft.embedLimits[field]}
          min={step}
          max={max}
          step={step}
          onChange={(value) => set({ embedLimits: { ...draft.embedLimits, [field]: value } })}
        />
      ))}
    </>
  );
}
