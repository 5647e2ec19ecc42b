// The code an answer ran in the conversation's sandbox: while the answer streams, each run_code call's code and
// "Running…" until its result; once stored (and after a reload), each run's code, exit status, output and the files it
// kept, with their download links (the sandbox's files route).
import { t } from '../../i18n';
import type { LiveToolCall } from './types';
import type { CodeRun } from './use-turn-records';

const RUN_CODE = 'run_code';

const liveCode = (call: LiveToolCall): { language: string; code: string } => {
  try {
    const args = JSON.parse(call.arguments) as { language?: string; code?: string };
    return { language: args.language ?? '', code: args.code ?? '' };
  } catch {
    return { language: '', code: call.arguments };
  }
};

function status(run: CodeRun): string {
  if (run.timedOut) return t('codeTimedOut');
  return run.exitCode === null ? t('codeNoExit') : t('codeExit', { code: String(run.exitCode) });
}

export function CodeRuns({
  filesRoute,
  runs,
  live = [],
}: {
  /** The conversation's sandbox files route (`…/sandbox/files`). */
  filesRoute: string;
  runs: readonly CodeRun[];
  live?: readonly LiveToolCall[];
}) {
  const running = live.filter((call) => call.name === RUN_CODE);
  if (runs.length === 0 && running.length === 0) return null;
  return (
    <div class="code-runs">
      {running.map((call) => {
        const { language, code } = liveCode(call);
        return (
          <section key={call.id} class="code-run" aria-label={t('codeRun')}>
            <h3>
              {t('codeRun')} {language && <span class="code-language">{language}</span>}
            </h3>
            <pre>{code}</pre>
            <p role="status">{call.ok === undefined ? t('codeRunning') : t('codeRanWaiting')}</p>
          </section>
        );
      })}
      {running.length === 0 &&
        runs.map((run) => (
          <section key={run.callId} class="code-run" aria-label={t('codeRun')}>
            <h3>
              {t('codeRun')} <span class="code-language">{run.language}</span>{' '}
              <span class={run.exitCode === 0 ? 'ok' : 'failed'}>{status(run)}</span>
            </h3>
            <pre class="code">{run.code}</pre>
            <h4>{t('codeOutput')}</h4>
            <pre class="output">{run.output || t('codeNoOutput')}</pre>
            {run.truncated && <p class="note">{t('codeTruncated')}</p>}
            {run.files.length > 0 && (
              <>
                <h4>{t('codeFiles')}</h4>
                <ul class="code-files">
                  {run.files.map((file) => (
                    <li key={file.path}>
                      <a href={`${filesRoute}?path=${encodeURIComponent(file.path)}`} download>
                        {file.path}
                      </a>{' '}
                      <span class="muted">({t('bytes', { n: String(file.sizeBytes) })})</span>
                    </li>
                  ))}
                </ul>
              </>
            )}
          </section>
        ))}
    </div>
  );
}
