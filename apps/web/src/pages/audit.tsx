// The audit trail in the browser (GET /audit): who changed what, newest first, filtered by actor, resource, action
// and time (the filters live in the address), each change before → after, a cascade's cause one click away; the
// selection downloaded as a hash-chained export (GET /audit/export) and any export verified in the browser. Admins
// read the whole trail; whoever may change a Space reads that Space's (its page links here with the Space's id).
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, CORE } from '../api';
import { errorSentence } from '../errors';
import { t } from '../i18n';
import { navigate } from '../router';
import type { List, Me } from '../state';
import { AuditEntryItem } from './audit/audit-entry';
import { AuditFilters } from './audit/audit-filters';
import { filtersOf, queryOf, type AuditEntry, type Filters } from './audit/audit-types';
import { VerifyExport } from './audit/verify-export';

interface Page {
  readonly data: readonly AuditEntry[];
  readonly nextCursor: string | null;
}

/** The names of the people an admin may list, so entries say who rather than an id. */
function useNames(me: Me): ReadonlyMap<string, string> {
  const [names, setNames] = useState<ReadonlyMap<string, string>>(new Map([[me.id, me.name || me.email]]));
  useEffect(() => {
    if (me.role !== 'admin') return;
    void api<List<{ id: string; name: string | null; email: string }>>('GET', 'users?limit=200').then(
      (list) => setNames(new Map(list.data.map((user) => [user.id, user.name ?? user.email]))),
      () => undefined,
    );
  }, [me.id]);
  return names;
}

export function Audit({ me, search }: { me: Me; search: string }) {
  const filters = filtersOf(search);
  const names = useNames(me);
  const [entries, setEntries] = useState<readonly AuditEntry[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const load = (after: string | null) => {
    setLoading(true);
    void api<Page>(
      'GET',
      `audit?${queryOf(filters, { limit: '50', ...(after ? { cursor: after } : {}) })}`,
    ).then(
      (page) => {
        setEntries(after ? [...entries, ...page.data] : page.data);
        setCursor(page.nextCursor);
        setError(null);
        setLoading(false);
      },
      (failure: unknown) => {
        const wholeTrail = !filters.resourceId && failure instanceof ApiError && failure.status === 403;
        setError(wholeTrail ? t('auditAdminsOnly') : errorSentence(failure));
        if (!after) setEntries([]);
        setCursor(null);
        setLoading(false);
      },
    );
  };
  useEffect(() => load(null), [search]);
  const apply = (next: Filters) => navigate(`/audit${queryOf(next) ? `?${queryOf(next)}` : ''}`);
  return (
    <section class="page audit" aria-labelledby="audit-title">
      <h1 id="audit-title">{t('audit')}</h1>
      <p class="note">{t('auditIntro')}</p>
      <AuditFilters key={search} filters={filters} onApply={apply} />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <p>
        <a href={`${CORE}/audit/export?${queryOf(filters)}`} download>
          {t('auditExport')}
        </a>
      </p>
      {!loading && !error && entries.length === 0 && <p>{t('auditEmpty')}</p>}
      <ol class="audit-entries" aria-label={t('auditEntries')}>
        {entries.map((entry) => (
          <AuditEntryItem
            key={entry.position}
            entry={entry}
            names={names}
            onFilter={(narrower) => apply({ ...filters, ...narrower })}
          />
        ))}
      </ol>
      {loading && <p>{t('loading')}</p>}
      {cursor && !loading && (
        <button type="button" onClick={() => load(cursor)}>
          {t('auditMore')}
        </button>
      )}
      <VerifyExport />
    </section>
  );
}
