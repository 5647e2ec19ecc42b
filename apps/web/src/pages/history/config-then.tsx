// The Agent's settings at the chosen moment, and what changed since: each setting that differs now, then → now
// (text as a word diff). Labels are the settings page's own.
import { t, type Label } from '../../i18n';
import type { AgentDetails } from '../build/build-kit';
import { ChangeDiff } from '../change-diff';

const FIELDS: readonly (readonly [keyof AgentDetails, Label])[] = [
  ['name', 'name'],
  ['model', 'model'],
  ['systemPrompt', 'systemPrompt'],
  ['temperature', 'temperature'],
  ['topP', 'topP'],
  ['topK', 'topK'],
  ['knowledgeEnabled', 'knowledgeToggle'],
  ['includeAiSummary', 'aiSummaryToggle'],
  ['memoryEnabled', 'memoryToggle'],
  ['sharedMemoryEnabled', 'sharedMemoryToggle'],
  ['codeExecutionEnabled', 'codeExecutionToggle'],
  ['isPublic', 'publicAgent'],
  ['allowedUrls', 'allowedUrls'],
  ['embedSessionMinutes', 'sessionMinutes'],
  ['embedWindowTitle', 'windowTitle'],
  ['conversationTokenBudget', 'tokenBudget'],
];

const shown = (value: unknown) =>
  typeof value === 'boolean'
    ? t(value ? 'historyOn' : 'historyOff')
    : Array.isArray(value)
      ? value.join(', ')
      : value;

export function ConfigThen({ then, now }: { then: AgentDetails; now: AgentDetails | null }) {
  const changed = now
    ? FIELDS.filter(([field]) => JSON.stringify(then[field]) !== JSON.stringify(now[field]))
    : [];
  return (
    <section aria-labelledby="config-then-title">
      <h2 id="config-then-title">{t('historySettings')}</h2>
      {now && (
        <>
          <h3>{t('historyChangedSince')}</h3>
          {changed.length === 0 ? (
            <p>{t('historyNothingChanged')}</p>
          ) : (
            <ul class="changes">
              {changed.map(([field, label]) => (
                <ChangeDiff
                  key={field}
                  field={t(label)}
                  before={shown(then[field])}
                  after={shown(now[field])}
                />
              ))}
            </ul>
          )}
        </>
      )}
      <h3>{t('historyThen')}</h3>
      <dl class="then">
        {FIELDS.map(([field, label]) => (
          <div key={field}>
            <dt>{t(label)}</dt>
            <dd class={field === 'systemPrompt' ? 'prompt-text' : undefined}>
              {String(shown(then[field]) ?? '—')}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
