// Replay (admins): choose recorded turns — an Agent's, in a time range, at most a few — and another chat model, run
// the replay (POST /replays: each turn's prompt rebuilt from the log as it was), and read the answers side by side
// with the words that differ marked, the citations kept, lost and added, and the tokens and cost of each.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { errorSentence } from '../errors';
import { language, t } from '../i18n';
import type { Agent, List } from '../state';
import { ReplayTurn, type Turn } from './replay/replay-turn';

interface Report {
  readonly model: string;
  readonly turns: readonly Turn[];
  readonly totals: {
    readonly turns: number;
    readonly replayed: number;
    readonly citationsKept: number;
    readonly citationsLost: number;
    readonly citationsAdded: number;
    readonly oldCostUsd: number;
    readonly newCostUsd: number;
  };
}

interface Model {
  readonly key: string;
  readonly displayName: string;
  readonly kind: string;
}

// Over 100 lines on purpose: one form and its report; each turn renders in replay/replay-turn.tsx.
export function Replay() {
  const [agents, setAgents] = useState<readonly Agent[]>([]);
  const [models, setModels] = useState<readonly Model[]>([]);
  const [form, setForm] = useState({ agentId: '', model: '', limit: 5, reRetrieve: false });
  const [report, setReport] = useState<Report | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api<List<Agent>>('GET', 'agents?limit=200').then(
      (list) => setAgents(list.data),
      () => undefined,
    );
    void api<{ data: Model[] }>('GET', 'models').then(
      (list) => setModels(list.data.filter((model) => model.kind === 'chat')),
      () => undefined,
    );
  }, []);
  const run = async (event: Event) => {
    event.preventDefault();
    setRunning(true);
    setError(null);
    try {
      const answer = await api<{ report: Report }>('POST', 'replays', {
        agentId: form.agentId,
        model: form.model,
        limit: form.limit,
        ...(form.reRetrieve ? { reRetrieve: {} } : {}),
      });
      setReport(answer.report);
    } catch (failure) {
      setError(errorSentence(failure));
    } finally {
      setRunning(false);
    }
  };
  const money = (value: number) =>
    new Intl.NumberFormat(language(), {
      style: 'currency',
      currency: 'USD',
      maximumFractionDigits: 4,
    }).format(value);
  return (
    <section class="page replay" aria-labelledby="replay-title">
      <h1 id="replay-title">{t('replay')}</h1>
      <p class="note">{t('replayIntro')}</p>
      <form class="replay-form" onSubmit={(e) => void run(e)}>
        <label>
          {t('replayAgent')}
          <select
            required
            value={form.agentId}
            onChange={(e) => setForm({ ...form, agentId: (e.target as HTMLSelectElement).value })}
          >
            <option value="">{t('replayChooseAgent')}</option>
            {agents.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('replayModel')}
          <select
            required
            value={form.model}
            onChange={(e) => setForm({ ...form, model: (e.target as HTMLSelectElement).value })}
          >
            <option value="">{t('replayChooseModel')}</option>
            {models.map((model) => (
              <option key={model.key} value={model.key}>
                {model.displayName} ({model.key})
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('replayLimit')}
          <input
            type="number"
            min={1}
            max={20}
            value={form.limit}
            onInput={(e) => setForm({ ...form, limit: Number((e.target as HTMLInputElement).value) })}
          />
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={form.reRetrieve}
            onChange={(e) => setForm({ ...form, reRetrieve: (e.target as HTMLInputElement).checked })}
          />
          {t('replayReRetrieve')}
        </label>
        <button type="submit" disabled={running}>
          {running ? t('replayRunning') : t('replayRun')}
        </button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {report && (
        <section aria-labelledby="replay-report-title">
          <h2 id="replay-report-title">{t('replayReport', { model: report.model })}</h2>
          <p role="status">
            {t('replayTotals', {
              replayed: String(report.totals.replayed),
              turns: String(report.totals.turns),
              kept: String(report.totals.citationsKept),
              lost: String(report.totals.citationsLost),
              added: String(report.totals.citationsAdded),
              oldCost: money(report.totals.oldCostUsd),
              newCost: money(report.totals.newCostUsd),
            })}
          </p>
          <ol class="replay-turns">
            {report.turns.map((turn) => (
              <ReplayTurn key={turn.messageId} turn={turn} />
            ))}
          </ol>
        </section>
      )}
    </section>
  );
}
