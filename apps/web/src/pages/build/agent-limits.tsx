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

export function EmbedLimitFields({ draft, set }: { draft: AgentDraft; set: SetDraft }) {
  const limit = (field: keyof EmbedLimits) => (value: number | null) =>
    set({ embedLimits: { ...draft.embedLimits, [field]: value } });
  return (
    <>
      <p class="note">{t('embedLimitsHint')}</p>
      <OptionalNumber
        label="visitorMessagesPerMinute"
        value={draft.embedLimits.visitorMessagesPerMinute}
        min={1}
        max={10_000}
        onChange={limit('visitorMessagesPerMinute')}
      />
      <OptionalNumber
        label="agentMessagesPerMinute"
        value={draft.embedLimits.agentMessagesPerMinute}
        min={1}
        max={1_000_000}
        onChange={limit('agentMessagesPerMinute')}
      />
      <OptionalNumber
        label="dailyCostUsd"
        value={draft.embedLimits.dailyCostUsd}
        min={0.01}
        max={1_000_000}
        step={0.01}
        onChange={limit('dailyCostUsd')}
      />
    </>
  );
}
