// For which Agents an App is enabled: every Agent (personal ones too), or those ticked.
import { useState } from 'preact/hooks';
import { t } from '../../i18n';
import type { Agent } from '../../state';
import type { Enablement } from './app-types';

interface Props {
  readonly appName: string;
  readonly value: Enablement;
  readonly agents: readonly Agent[];
  readonly onSave: (next: Enablement) => void;
}

export function AppEnablement({ appName, value, agents, onSave }: Props) {
  const [global, setGlobal] = useState(value.kind === 'global');
  const [chosen, setChosen] = useState<ReadonlySet<string>>(
    new Set(value.kind === 'agents' ? value.agentIds : []),
  );
  const toggle = (agentId: string) => {
    const next = new Set(chosen);
    if (next.has(agentId)) next.delete(agentId);
    else next.add(agentId);
    setChosen(next);
  };
  const save = (event: Event) => {
    event.preventDefault();
    onSave(global ? { kind: 'global' } : { kind: 'agents', agentIds: [...chosen] });
  };
  return (
    <form onSubmit={save}>
      <fieldset>
        <legend>{t('appEnabledFor', { name: appName })}</legend>
        <label>
          <input type="checkbox" checked={global} onChange={() => setGlobal(!global)} />
          {t('appEveryAgent')}
        </label>
        {!global &&
          agents.map((agent) => (
            <label key={agent.id}>
              <input type="checkbox" checked={chosen.has(agent.id)} onChange={() => toggle(agent.id)} />
              {agent.name}
            </label>
          ))}
      </fieldset>
      <button type="submit">{t('appSaveEnablement', { name: appName })}</button>
    </form>
  );
}
