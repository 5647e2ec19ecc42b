// The tools an answer called, one line each under the answer: "Calling echo…" while it runs, then done or failed; the
// line opens to the arguments it was called with (and the lines its server logged); a running call shows the
// progress its server reports. An App's tool reads as its own name and its App (the model knows it as
// `<appId>__<tool>`). run_code's calls are not here: code-runs.tsx shows them with their code and output.
import { t } from '../../i18n';
import type { ToolCallView, ToolProgress } from './types';

export interface ToolCallShown {
  readonly name: string;
  /** JSON as the model wrote it; null once erased. */
  readonly arguments: string | null;
  /** Unset while the tool runs. */
  readonly ok?: boolean;
  /** The MCP App view its result renders in (mcp-app-view.tsx). */
  readonly view?: ToolCallView;
  /** A running call's progress and log lines, as its server reports them (streamed answers only). */
  readonly progress?: ToolProgress;
  readonly logs?: readonly string[];
}

const APP_TOOL = /^(app_[A-Za-z0-9]+)__(.+)$/;

/** A tool as the person reads it: an App's by its own name, with its App's id; another by its name. */
export function toolNaming(name: string): { tool: string; appId: string | undefined } {
  const [, appId, appTool] = APP_TOOL.exec(name) ?? [];
  return { tool: appTool ?? name, appId };
}

/** Arguments as the person reads them: JSON indented, anything else as it came. */
export function readable(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

/** A running call's progress: a bar with the share done when the server says of how much, else the count. */
function ProgressLine({ tool, progress }: { tool: string; progress: ToolProgress }) {
  const { total } = progress;
  const known = total !== undefined && total > 0;
  const percent = known ? Math.round(Math.min(1, progress.progress / total) * 100) : 0;
  return (
    <div class="tool-progress">
      <progress
        aria-label={t('toolProgressOf', { tool })}
        {...(known ? { value: progress.progress, max: total } : {})}
      />
      <span>
        {known
          ? t('toolProgressSteps', {
              progress: String(progress.progress),
              total: String(total),
              percent: String(percent),
            })
          : t('toolProgressCount', { progress: String(progress.progress) })}
      </span>
      {progress.message && <span class="muted">{progress.message}</span>}
    </div>
  );
}

function ToolCallLine({ call, appName }: { call: ToolCallShown; appName: (appId: string) => string }) {
  const { tool, appId } = toolNaming(call.name);
  const state = call.ok === undefined ? 'running' : call.ok ? 'done' : 'failed';
  const said =
    state === 'running'
      ? t('toolCalling', { tool })
      : t(state === 'done' ? 'toolDone' : 'toolFailed', { tool });
  return (
    <li class="tool-call" data-state={state}>
      <details>
        <summary title={call.name}>
          <span class="tool-state" aria-hidden="true" />
          <span role={state === 'running' ? 'status' : undefined}>{said}</span>
          {appId && <span class="muted"> {t('toolFromApp', { app: appName(appId) })}</span>}
        </summary>
        <p class="note">{t('toolArguments')}</p>
        <pre>{call.arguments === null ? t('whyArgumentsErased') : readable(call.arguments)}</pre>
        {call.logs && call.logs.length > 0 && (
          <>
            <p class="note">{t('toolLog', { tool })}</p>
            <pre>{call.logs.join('\n')}</pre>
          </>
        )}
      </details>
      {state === 'running' && call.progress && <ProgressLine tool={tool} progress={call.progress} />}
    </li>
  );
}

export function ToolCalls({
  calls,
  appNames,
}: {
  calls: readonly ToolCallShown[];
  /** The Apps the page knows by id; another App is named by its id. */
  appNames: ReadonlyMap<string, string>;
}) {
  const appName = (appId: string) => appNames.get(appId) ?? appId;
  return (
    <ul class="tool-calls" aria-label={t('toolCalls')}>
      {calls.map((call, index) => (
        <ToolCallLine key={index} call={call} appName={appName} />
      ))}
    </ul>
  );
}
