// A Space's Agents, each with its chat and its settings, and (for the Space's editors and owners) a form that creates
// one and opens its settings, where its model and the rest are chosen.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import { linkTo, navigate } from '../../router';
import { directoryChanged } from '../../state';
import { buildError, type AgentDetails, type SpaceDetails } from './build-kit';

export function SpaceAgents({
  space,
  agents,
  mayCreate,
}: {
  space: SpaceDetails;
  agents: readonly AgentDetails[] | null;
  mayCreate: boolean;
}) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const agent = await api<AgentDetails>('POST', 'agents', { spaceId: space.id, name });
      directoryChanged();
      navigate(`/agent/${agent.id}/settings`);
    } catch (failure) {
      setError(buildError(failure));
    }
  };
  return (
    <section aria-labelledby="space-agents-title">
      <h2 id="space-agents-title">{t('agents')}</h2>
      {agents === null && <p>{t('loading')}</p>}
      {agents?.length === 0 && <p>{t('noAgents')}</p>}
      <ul class="agent-list">
        {(agents ?? []).map((agent) => {
          const chat = `/space/${space.id}/agent/${agent.id}`;
          const settings = `/agent/${agent.id}/settings`;
          return (
            <li key={agent.id}>
              <a href={chat} onClick={linkTo(chat)}>
                {agent.name}
              </a>{' '}
              <a href={settings} onClick={linkTo(settings)} aria-label={`${t('settings')}: ${agent.name}`}>
                {t('settings')}
              </a>
            </li>
          );
        })}
      </ul>
      {mayCreate ? (
        <form class="inline-form" onSubmit={(e) => void create(e)}>
          <label>
            {t('newAgentName')}
            <input
              required
              maxLength={200}
              value={name}
              aria-invalid={error ? 'true' : undefined}
              aria-describedby={error ? 'new-agent-error' : undefined}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
          </label>
          <button type="submit">{t('createAgent')}</button>
          {error && (
            <p id="new-agent-error" role="alert" class="error">
              {error}
            </p>
          )}
        </form>
      ) : (
        <p class="readonly-reason">{t('agentManagersOnly')}</p>
      )}
    </section>
  );
}
