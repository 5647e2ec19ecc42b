// The Apps enabled for an Agent (its chat shows their views). Admins enable Apps on the Admin page; here they are
// listed for whoever uses the Agent.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import { buildError } from './build-kit';

export function AgentApps({ agentId }: { agentId: string }) {
  const [apps, setApps] = useState<{ id: string; name: string }[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<{ data: { id: string; name: string }[] }>('GET', `agents/${encodeURIComponent(agentId)}/apps`).then(
      (answer) => setApps(answer.data),
      (failure: unknown) => setError(buildError(failure)),
    );
  }, [agentId]);
  return (
    <section aria-labelledby="agent-apps-title">
      <h2 id="agent-apps-title">{t('apps')}</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {apps?.length === 0 && <p>{t('noAppsEnabled')}</p>}
      <ul>
        {(apps ?? []).map((app) => (
          <li key={app.id}>{app.name}</li>
        ))}
      </ul>
      <p class="note">{t('appsByAdmins')}</p>
    </section>
  );
}
