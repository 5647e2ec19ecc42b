// One entry of the audit trail: when, who (a person's name where the page knows it, else the actor's kind and id,
// and how they signed in), what they did to which resource (a link to it where the app has a page), the changes
// before → after, and for a step of a cascade what caused it (the whole request's chain one click away).
import { preciseDateTime } from '../../dates';
import { t } from '../../i18n';
import { linkTo } from '../../router';
import { ChangeDiff } from '../change-diff';
import type { AuditEntry, Filters } from './audit-types';

/** The page of a resource the app shows, if any. */
function pageOf(type: string, id: string): string | null {
  if (type === 'space') return `/space/${id}/settings`;
  if (type === 'agent') return `/agent/${id}/settings`;
  return null;
}

interface Props {
  readonly entry: AuditEntry;
  readonly names: ReadonlyMap<string, string>;
  readonly onFilter: (filters: Filters) => void;
}

export function AuditEntryItem({ entry, names, onFilter }: Props) {
  const person = entry.actor.userId ?? (entry.actor.kind === 'user' ? entry.actor.id : null);
  const who =
    (person && names.get(person)) ?? (entry.actor.kind === 'platform' ? t('auditPlatform') : entry.actor.id);
  const page = pageOf(entry.resource.type, entry.resource.id);
  return (
    <li class="audit-entry" data-position={entry.position}>
      <p>
        <time dateTime={entry.occurredAt}>{preciseDateTime(entry.occurredAt)}</time> —{' '}
        <button type="button" class="link" onClick={() => onFilter({ actorId: person ?? entry.actor.id })}>
          {who}
        </button>{' '}
        <span class="note">({t(`auditCredential_${entry.credentialKind}`)})</span> {entry.action}{' '}
        <span class="badge">{entry.resource.type}</span>{' '}
        {page ? (
          <a href={page} onClick={linkTo(page)}>
            {entry.resource.id}
          </a>
        ) : (
          <code>{entry.resource.id}</code>
        )}{' '}
        <button type="button" class="link" onClick={() => onFilter({ resourceId: entry.resource.id })}>
          {t('auditOnlyResource')}
          <span class="visually-hidden"> ({entry.resource.id})</span>
        </button>
      </p>
      {entry.changes.length > 0 && (
        <ul class="changes">
          {entry.changes.map((change) => (
            <ChangeDiff key={change.field} {...change} />
          ))}
        </ul>
      )}
      {entry.causationId && (
        <p class="note">
          {t('auditCaused')}{' '}
          <button type="button" class="link" onClick={() => onFilter({ correlationId: entry.correlationId })}>
            {t('auditShowChain')}
          </button>
        </p>
      )}
    </li>
  );
}
