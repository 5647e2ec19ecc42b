// An Agent's section-summary index: the tree that serves (its size and when it was built), the latest build with its
// progress (level, groups done of total) read again while it runs, its last error; build it (reusing unchanged
// summaries), rebuild it in full, cancel a build under way.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { dateTime } from '../../dates';
import { t, type Label } from '../../i18n';
import { ErrorLine } from './error-line';
import { codeLabel, knowledgeError, knowledgePath } from './knowledge-kit';

type BuildState = 'requested' | 'running' | 'completed' | 'cancelled' | 'failed';

interface SummaryIndex {
  readonly status: 'none' | 'building' | 'ready';
  readonly serving: { nodeCount: number; levels: number; documentCount: number; builtAt: string } | null;
  readonly build: {
    readonly state: BuildState;
    readonly full: boolean;
    readonly level: number;
    readonly groupsDone: number;
    readonly groupsTotal: number;
    readonly error: { reason: string; message: string } | null;
  } | null;
}

const STATES: Readonly<Record<BuildState, Label>> = {
  requested: 'knBuildRequested',
  running: 'knBuildRunningState',
  completed: 'knBuildCompleted',
  cancelled: 'knBuildCancelled',
  failed: 'knBuildFailed',
};

const running = (index: SummaryIndex | null) =>
  index?.build?.state === 'requested' || index?.build?.state === 'running';

export function SummaryIndexPanel({ agentId, readOnly }: { agentId: string; readOnly: boolean }) {
  const [index, setIndex] = useState<SummaryIndex | null>(null);
  const [error, setError] = useState<Label | null>(null);
  const path = knowledgePath(agentId, 'summary-index');
  const load = () =>
    api<SummaryIndex>('GET', path).then(setIndex, (failure: unknown) => setError(knowledgeError(failure)));
  useEffect(() => void load(), [agentId]);
  useEffect(() => {
    if (!running(index)) return;
    const timer = setTimeout(() => void load(), 1000);
    return () => clearTimeout(timer);
  }, [index]);
  const send = (action: 'build' | 'rebuild' | 'cancel') => {
    setError(null);
    api<SummaryIndex>('POST', `${path}/${action}`, action === 'build' ? {} : undefined).then(
      (answer) => (action === 'cancel' ? void load() : setIndex(answer)),
      (failure: unknown) => setError(knowledgeError(failure)),
    );
  };
  const build = index?.build;
  return (
    <section class="kn-index" aria-labelledby="kn-index-title">
      <h3 id="kn-index-title">{t('knIndex')}</h3>
      <p class="note">{t('knIndexHint')}</p>
      {index === null ? (
        !error && <p>{t('loading')}</p>
      ) : (
        <dl>
          <dt>{t('knIndexServing')}</dt>
          <dd>
            {index.serving
              ? t('knIndexTree', {
                  nodes: String(index.serving.nodeCount),
                  levels: String(index.serving.levels),
                  documents: String(index.serving.documentCount),
                  at: dateTime(index.serving.builtAt),
                })
              : t('knIndexNone')}
          </dd>
          {build && (
            <>
              <dt>{t('knIndexBuild')}</dt>
              <dd>
                <span role="status">
                  {t(STATES[build.state])}
                  {running(index) &&
                    ` — ${t('knIndexProgress', {
                      level: String(build.level),
                      done: String(build.groupsDone),
                      total: String(build.groupsTotal),
                    })}`}
                  {running(index) && build.groupsTotal > 0 && (
                    <progress
                      max={build.groupsTotal}
                      value={build.groupsDone}
                      aria-label={t('knIndexBuild')}
                    />
                  )}
                </span>
              </dd>
              {build.error && (
                <>
                  <dt>{t('knIndexError')}</dt>
                  <dd class="error">
                    {t(codeLabel({ code: build.error.reason, message: build.error.message }))}
                  </dd>
                </>
              )}
            </>
          )}
        </dl>
      )}
      {readOnly ? (
        <p class="readonly-reason">{t('knIndexReadOnly')}</p>
      ) : (
        <p class="kn-index-actions">
          <button type="button" disabled={running(index)} onClick={() => send('build')}>
            {t('knIndexBuildAction')}
          </button>{' '}
          <button type="button" disabled={running(index)} onClick={() => send('rebuild')}>
            {t('knIndexRebuild')}
          </button>{' '}
          <button type="button" disabled={!running(index)} onClick={() => send('cancel')}>
            {t('knIndexCancel')}
          </button>
        </p>
      )}
      <ErrorLine label={error} />
    </section>
  );
}
