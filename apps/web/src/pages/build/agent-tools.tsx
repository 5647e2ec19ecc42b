// The tools of an Agent's Apps on its settings page: each with its App, description and a destructive mark, a switch
// that offers it to the model or not, and how its calls are approved (automatically, after the person asks first, or
// never). The Agent's managers change them, each change saved at once; whoever else uses the Agent reads them.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { t, type Label } from '../../i18n';
import { AgentAppConnects } from './agent-app-connects';
import { buildError, useLoaded } from './build-kit';

type Approval = 'auto' | 'ask' | 'never';

interface AgentTool {
  readonly name: string;
  readonly appId: string;
  readonly appName: string;
  readonly tool: string;
  readonly description: string;
  readonly destructive: boolean;
  readonly enabled: boolean;
  readonly approval: Approval;
}

const APPROVALS: readonly [Approval, Label][] = [
  ['auto', 'agentToolApprovalAuto'],
  ['ask', 'agentToolApprovalAsk'],
  ['never', 'agentToolApprovalNever'],
];

const REFUSALS: Readonly<Record<string, Label>> = { agent_tool_not_found: 'agentToolGone' };

function ToolRow({ agentId, initial, readOnly }: { agentId: string; initial: AgentTool; readOnly: boolean }) {
  const [tool, setTool] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const save = async (change: { enabled?: boolean; approval?: Approval }) => {
    setError(null);
    setSaved(false);
    try {
      const path = `agents/${encodeURIComponent(agentId)}/tools/${encodeURIComponent(tool.name)}`;
      setTool(await api<AgentTool>('PATCH', path, change));
      setSaved(true);
    } catch (failure) {
      setError(buildError(failure, REFUSALS));
    }
  };
  const id = `agent-tool-${tool.name}`;
  return (
    <li class="agent-tool" aria-labelledby={`${id}-name`}>
      <p class="agent-tool-head">
        <strong id={`${id}-name`}>{tool.tool}</strong>{' '}
        <span class="muted">{t('toolFromApp', { app: tool.appName })}</span>
        {tool.destructive && <span class="tool-mark destructive">{t('appMcpDestructive')}</span>}
      </p>
      {tool.description && <p class="note">{tool.description}</p>}
      <div class="agent-tool-controls">
        <label class="check">
          <input
            type="checkbox"
            role="switch"
            checked={tool.enabled}
            disabled={readOnly}
            aria-describedby={readOnly ? 'agent-tools-readonly' : undefined}
            onChange={(e) => void save({ enabled: (e.target as HTMLInputElement).checked })}
          />
          {t('agentToolEnabled', { tool: tool.tool })}
        </label>
        <label>
          {t('agentToolApproval', { tool: tool.tool })}
          <select
            value={tool.approval}
            disabled={readOnly}
            aria-describedby={readOnly ? 'agent-tools-readonly' : undefined}
            onChange={(e) => void save({ approval: (e.target as HTMLSelectElement).value as Approval })}
          >
            {APPROVALS.map(([value, label]) => (
              <option key={value} value={value}>
                {t(label)}
              </option>
            ))}
          </select>
        </label>
      </div>
      {saved && (
        <p role="status" class="note">
          {t('agentToolSaved')}
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </li>
  );
}

export function AgentTools({ agentId, readOnly }: { agentId: string; readOnly: boolean }) {
  const [tools, error] = useLoaded<{ data: AgentTool[] }>(`agents/${encodeURIComponent(agentId)}/tools`);
  return (
    <section class="agent-tools" aria-labelledby="agent-tools-title">
      <h2 id="agent-tools-title">{t('agentTools')}</h2>
      <p class="note" id="agent-tools-readonly">
        {readOnly ? t('agentToolsReadOnly') : t('agentToolsHint')}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <AgentAppConnects agentId={agentId} />
      {tools?.data.length === 0 && <p>{t('agentToolsNone')}</p>}
      <ul class="agent-tool-list">
        {(tools?.data ?? []).map((tool) => (
          <ToolRow key={tool.name} agentId={agentId} initial={tool} readOnly={readOnly} />
        ))}
      </ul>
    </section>
  );
}
