// An Agent's switches (Knowledge, AI summary, memory, shared memory, code execution, with the history budget) and its
// publishing (public, the sites that may embed it, the embed session's minutes and window title, its limits). A public
// Agent has no memory: its visitors are anonymous, so the memory switches are off and say why; a personal Agent is
// never public.
import { t, type Label } from '../../i18n';
import type { AgentDraft, SetDraft } from './agent-draft';
import { EmbedLimitFields, TokenBudget } from './agent-limits';

type Switch =
  'knowledgeEnabled' | 'includeAiSummary' | 'memoryEnabled' | 'sharedMemoryEnabled' | 'codeExecutionEnabled';

function Toggle({
  field,
  label,
  hint,
  draft,
  set,
  off,
}: {
  field: Switch | 'isPublic';
  label: Label;
  hint: Label;
  draft: AgentDraft;
  set: SetDraft;
  /** Why the switch is off and fixed (null: it may be changed). */
  off?: string | null;
}) {
  const hintId = `hint-${field}`;
  return (
    <div class="toggle">
      <label class="check">
        <input
          type="checkbox"
          name={field}
          checked={off ? false : draft[field]}
          disabled={Boolean(off)}
          aria-describedby={hintId}
          onChange={(e) => set({ [field]: (e.target as HTMLInputElement).checked })}
        />
        {t(label)}
      </label>
      <p id={hintId} class="note">
        {off ?? t(hint)}
      </p>
    </div>
  );
}

export function Features({ draft, set }: { draft: AgentDraft; set: SetDraft }) {
  const memoryOff = draft.isPublic ? t('memoryOffPublic') : null;
  return (
    <fieldset class="features">
      <legend>{t('features')}</legend>
      <Toggle field="knowledgeEnabled" label="knowledgeToggle" hint="knowledgeHint" draft={draft} set={set} />
      <Toggle field="includeAiSummary" label="aiSummaryToggle" hint="aiSummaryHint" draft={draft} set={set} />
      <Toggle
        field="memoryEnabled"
        label="memoryToggle"
        hint="memoryHint"
        draft={draft}
        set={set}
        off={memoryOff}
      />
      <Toggle
        field="sharedMemoryEnabled"
        label="sharedMemoryToggle"
        hint="sharedMemoryHint"
        draft={draft}
        set={set}
        off={memoryOff}
      />
      <Toggle
        field="codeExecutionEnabled"
        label="codeExecutionToggle"
        hint="codeExecutionHint"
        draft={draft}
        set={set}
      />
      <TokenBudget draft={draft} set={set} />
    </fieldset>
  );
}

export function Publishing({
  draft,
  set,
  personal,
}: {
  draft: AgentDraft;
  set: SetDraft;
  personal: boolean;
}) {
  const value = (event: Event) => (event.target as HTMLInputElement).value;
  return (
    <fieldset class="publishing">
      <legend>{t('embed')}</legend>
      <Toggle
        field="isPublic"
        label="publicAgent"
        hint="publicHint"
        draft={draft}
        set={set}
        off={personal ? t('personalAgentNotPublic') : null}
      />
      <label>
        {t('allowedUrls')}
        <input
          name="allowedUrls"
          value={draft.allowedUrls}
          aria-describedby="allowed-urls-hint"
          onInput={(e) => set({ allowedUrls: value(e) })}
        />
      </label>
      <p id="allowed-urls-hint" class="note">
        {t('allowedUrlsHint')}
      </p>
      <label>
        {t('sessionMinutes')}
        <input
          name="embedSessionMinutes"
          type="number"
          min="0"
          max="43200"
          value={draft.embedSessionMinutes}
          onInput={(e) => set({ embedSessionMinutes: Number(value(e)) })}
        />
      </label>
      <label>
        {t('windowTitle')}
        <input
          name="embedWindowTitle"
          maxLength={200}
          value={draft.embedWindowTitle}
          onInput={(e) => set({ embedWindowTitle: value(e) })}
        />
      </label>
      <EmbedLimitFields draft={draft} set={set} />
    </fieldset>
  );
}
