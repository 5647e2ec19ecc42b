// On an Agent's Tools section: the Apps of the Agent that act in each person's name (OAuth MCP Apps) and that this
// person has not connected their account to, each with the chat's Connect button (the browser goes to the App's
// sign-in and comes back to this page). Their tools reach this person's turns only once they connect.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { AppConnects } from '../chat/app-connect';
import type { ConnectAsked } from '../chat/types';

interface AgentApp {
  readonly id: string;
  readonly name: string;
  readonly connectUrl?: string;
}

export function AgentAppConnects({ agentId }: { agentId: string }) {
  const [asked, setAsked] = useState<{ apps: ConnectAsked[]; names: Map<string, string> } | null>(null);
  useEffect(() => {
    let current = true;
    void (async () => {
      const { data } = await api<{ data: AgentApp[] }>('GET', `agents/${encodeURIComponent(agentId)}/apps`);
      const signingIn = data.filter((app) => app.connectUrl !== undefined);
      const connected = await Promise.all(
        signingIn.map((app) =>
          api<{ connected: boolean }>('GET', `apps/${encodeURIComponent(app.id)}/oauth/connection`).then(
            (connection) => connection.connected,
            // An App gone or changed meanwhile asks for nothing here.
            () => true,
          ),
        ),
      );
      if (!current) return;
      setAsked({
        apps: signingIn
          .filter((_app, index) => !connected[index])
          .map((app) => ({ appId: app.id, connectUrl: app.connectUrl! })),
        names: new Map(signingIn.map((app) => [app.id, app.name])),
      });
    })().catch(() => undefined);
    return () => {
      current = false;
    };
  }, [agentId]);
  if (!asked || asked.apps.length === 0) return null;
  return <AppConnects asked={asked.apps} appNames={asked.names} />;
}
