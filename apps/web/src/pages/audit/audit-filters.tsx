// The Audit page's filters: who, which resource (an id, or a type), the action's words or event type, a time range.
// Applying them changes the page's address, so a filtered view is a link to share.
import { useState } from 'preact/hooks';
import { localInputValue } from '../../dates';
import { t } from '../../i18n';
import type { Filters } from './audit-types';

/** The resource types the trail names (a stream's words before its entity id). */
const TYPES = [
  'space',
  'agent',
  'document',
  'knowledge-tag',
  'skill',
  'memory-bucket',
  'conversation',
  'user',
  'apikey',
  'invitation',
  'app',
  'space-spend',
  'user-spend',
  'projection',
];

/** `datetime-local` speaks local time without a zone; the API wants ISO 8601. */
const iso = (local: string) => (local ? new Date(local).toISOString() : '');

export function AuditFilters({
  filters,
  onApply,
}: {
  filters: Filters;
  onApply: (filters: Filters) => void;
}) {
  const [draft, setDraft] = useState<Filters>(filters);
  const set = (name: keyof Filters) => (e: Event) =>
    setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value });
  const field = (name: keyof Filters, label: string) => (
    <label>
      {label}
      <input type="text" value={draft[name] ?? ''} onInput={set(name)} />
    </label>
  );
  const time = (name: 'from' | 'to', label: string) => (
    <label>
      {label}
      <input
        type="datetime-local"
        value={draft[name] ? localInputValue(draft[name]) : ''}
        onInput={(e) => setDraft({ ...draft, [name]: iso((e.target as HTMLInputElement).value) })}
      />
    </label>
  );
  return (
    <form
      class="audit-filters"
      role="search"
      aria-label={t('auditFilters')}
      onSubmit={(e) => {
        e.preventDefault();
        onApply(draft);
      }}
    >
      {field('actorId', t('auditActor'))}
      {field('resourceId', t('auditResource'))}
      <label>
        {t('auditResourceType')}
        <select value={draft.resourceType ?? ''} onChange={set('resourceType')}>
          <option value="">{t('auditAnyType')}</option>
          {TYPES.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </label>
      {field('action', t('auditAction'))}
      {time('from', t('auditFrom'))}
      {time('to', t('auditTo'))}
      <button type="submit">{t('auditApply')}</button>{' '}
      <button
        type="button"
        onClick={() => {
          setDraft({});
          onApply({});
        }}
      >
        {t('auditClear')}
      </button>
    </form>
  );
}
