// For admins on /usage: the weekly limits of people (`/cost-control/users`), the limits of API keys by day, week or
// month (`/cost-control/{apiKeyId}`) and the weekly limits of Spaces (`/cost-control/spaces/{spaceId}`): set one, see
// what each used and when it resets, remove it.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { t, type Label } from '../../i18n';
import type { List, Space } from '../../state';
import { useOutcome } from '../people/outcome';
import { LimitForm, LimitTable, type LimitBody, type LimitRow } from './limit-kit';
import { amount, type Week } from './usage-data';

interface User {
  readonly id: string;
  readonly name: string;
  readonly email: string;
}
interface ApiKey {
  readonly id: string;
  readonly name: string;
  readonly keyPrefix: string;
  readonly revoked: boolean;
}
interface KeyControl {
  readonly apiKeyId: string;
  readonly usageLimit: {
    tokens: number | null;
    costUsd: number | null;
    window: 'day' | 'week' | 'month';
  } | null;
  readonly used: { tokens: number; costUsd: number } | null;
  readonly resetsAt: string | null;
}

/** One kind of limit: its subjects, how to read and write a limit of one, and how its rows read. */
interface LimitKind<S> {
  readonly title: Label;
  readonly subjectLabel: Label;
  readonly kind: 'overage' | 'window';
  readonly subjects: () => Promise<readonly S[]>;
  readonly idOf: (subject: S) => string;
  readonly nameOf: (subject: S) => string;
  /** Each subject's limit, what it used and when it resets; null: no limit. */
  readonly rows: (subjects: readonly S[]) => Promise<(Omit<LimitRow, 'id' | 'name'> | null)[]>;
  readonly path: (id: string) => string;
  readonly method: 'PUT' | 'POST';
}

const weekRow = (week: Week) =>
  week.limit && {
    limit: amount(week.limit.tokens, week.limit.costUsd),
    used: amount(week.used.tokens, week.used.costUsd),
    resetsAt: week.resetsAt,
  };

function LimitSection<S>({ of, onChanged }: { of: LimitKind<S>; onChanged: () => void }) {
  const [subjects, setSubjects] = useState<readonly S[]>([]);
  const [rows, setRows] = useState<LimitRow[]>([]);
  const { outcome, run, read } = useOutcome();
  const load = async () => {
    const all = (await read(of.subjects())) ?? [];
    setSubjects(all);
    const found = (await read(of.rows(all))) ?? [];
    setRows(
      all.flatMap((s, i) => {
        const row = found[i];
        return row ? [{ id: of.idOf(s), name: of.nameOf(s), ...row }] : [];
      }),
    );
  };
  useEffect(() => void load(), []);
  const changed = async (work: Promise<unknown>, success: Label) => {
    if ((await run(work, success)) === undefined) return;
    await load();
    onChanged();
  };
  const id = `limits-${of.title}`;
  return (
    <section aria-labelledby={id} class="limit-section">
      <h3 id={id}>{t(of.title)}</h3>
      <LimitForm
        subjects={subjects.map((s) => ({ id: of.idOf(s), name: of.nameOf(s) }))}
        subjectLabel={t(of.subjectLabel)}
        kind={of.kind}
        outcome={outcome}
        idPrefix={id}
        onSave={(subjectId: string, body: LimitBody) =>
          changed(api(of.method, of.path(subjectId), body), 'limitSaved')
        }
      />
      <LimitTable
        rows={rows}
        caption={t(of.title)}
        onRemove={(subjectId) => void changed(api('DELETE', of.path(subjectId)), 'limitRemoved')}
      />
    </section>
  );
}

const PEOPLE: LimitKind<User> = {
  title: 'limitsOfPeople',
  subjectLabel: 'usagePerson',
  kind: 'overage',
  subjects: () => api<List<User>>('GET', 'users?limit=200').then((l) => l.data),
  idOf: (u) => u.id,
  nameOf: (u) => `${u.name || u.email} (${u.email})`,
  rows: async (users) => {
    const weeks = await api<{ data: (Week & { userId: string })[] }>('GET', 'cost-control/users');
    const byUser = new Map(weeks.data.map((week) => [week.userId, week]));
    return users.map((u) => {
      const week = byUser.get(u.id);
      return week ? weekRow(week) : null;
    });
  },
  path: (id) => `cost-control/users/${encodeURIComponent(id)}`,
  method: 'PUT',
};

const KEYS: LimitKind<ApiKey> = {
  title: 'limitsOfKeys',
  subjectLabel: 'usageApiKey',
  kind: 'window',
  subjects: () =>
    api<List<ApiKey>>('GET', 'api-keys?limit=200').then((l) => l.data.filter((k) => !k.revoked)),
  idOf: (k) => k.id,
  nameOf: (k) => `${k.name} (${k.keyPrefix}…)`,
  rows: (keys) =>
    Promise.all(
      keys.map((k) =>
        api<KeyControl>('GET', `cost-control?apiKeyId=${encodeURIComponent(k.id)}`).then(
          (c) =>
            c.usageLimit && {
              limit: `${amount(c.usageLimit.tokens, c.usageLimit.costUsd)} / ${t(`window_${c.usageLimit.window}`)}`,
              used: c.used ? amount(c.used.tokens, c.used.costUsd) : '',
              resetsAt: c.resetsAt,
            },
        ),
      ),
    ),
  path: (id) => `cost-control/${encodeURIComponent(id)}`,
  // PUT replaces a key's limit and sets one where there was none.
  method: 'PUT',
};

const SPACES: LimitKind<Space> = {
  title: 'limitsOfSpaces',
  subjectLabel: 'usageSpace',
  kind: 'overage',
  subjects: () => api<List<Space>>('GET', 'spaces?limit=200').then((l) => l.data),
  idOf: (s) => s.id,
  nameOf: (s) => s.name,
  rows: (spaces) =>
    Promise.all(
      spaces.map((s) => api<Week>('GET', `cost-control/spaces/${encodeURIComponent(s.id)}`).then(weekRow)),
    ),
  path: (id) => `cost-control/spaces/${encodeURIComponent(id)}`,
  method: 'PUT',
};

export function UsageLimits({ onChanged }: { onChanged: () => void }) {
  return (
    <section aria-labelledby="limits-title" class="usage-limits">
      <h2 id="limits-title">{t('usageLimits')}</h2>
      <p class="note">{t('limitsAdminsOnly')}</p>
      <LimitSection of={PEOPLE} onChanged={onChanged} />
      <LimitSection of={KEYS} onChanged={onChanged} />
      <LimitSection of={SPACES} onChanged={onChanged} />
    </section>
  );
}
