// Admins see every API key (owner, Agents, usage limit), issue one for any person, rotate and revoke (after a
// confirmation); a new secret is shown once with a copy button.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { t, type Label } from '../../i18n';
import type { Agent, List } from '../../state';
import { ConfirmDialog } from '../confirm-dialog';
import { OutcomeLine, useOutcome } from '../people/outcome';
import { SecretOnce } from './secret';
import type { User } from './users';

interface ApiKey {
  readonly id: string;
  readonly name: string;
  readonly keyPrefix: string;
  readonly ownerUserId: string;
  readonly agents: 'all' | string[];
  readonly isAdmin: boolean;
  readonly usageLimit: { tokens: number | null; costUsd: number | null; window: string } | null;
  readonly revoked: boolean;
  readonly key?: string | null;
}

type Window = 'day' | 'week' | 'month';

function IssueKeyForm({ onIssued, agents }: { onIssued: (key: ApiKey) => void; agents: Agent[] }) {
  const [name, setName] = useState('');
  const [owner, setOwner] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [isAdmin, setIsAdmin] = useState(false);
  const [tokens, setTokens] = useState('');
  const [window, setWindow] = useState<Window>('week');
  const { outcome, run } = useOutcome();
  const field = (set: (value: string) => void) => (e: Event) => set((e.target as HTMLInputElement).value);
  const issue = async (event: Event) => {
    event.preventDefault();
    const issued = await run(
      api<ApiKey>('POST', 'api-keys', {
        name,
        ...(owner.trim() ? { owner: { email: owner.trim() } } : {}),
        agents: chosen.length > 0 ? chosen : 'all',
        isAdmin,
        usageLimit: tokens ? { tokens: Number(tokens), window } : null,
      }),
    );
    if (!issued) return;
    setName('');
    setOwner('');
    setChosen([]);
    onIssued(issued);
  };
  return (
    <form class="inline-form" onSubmit={(e) => void issue(e)}>
      <label>
        {t('keyName')}
        <input required maxLength={120} value={name} onInput={field(setName)} />
      </label>
      <label>
        {t('ownerEmail')}
        <input type="email" value={owner} onInput={field(setOwner)} />
      </label>
      <label>
        {t('agentIdsHint')}
        <select
          multiple
          size={Math.min(4, Math.max(2, agents.length))}
          onChange={(e) =>
            setChosen([...(e.target as HTMLSelectElement).selectedOptions].map((option) => option.value))
          }
        >
          {agents.map((agent) => (
            <option key={agent.id} value={agent.id} selected={chosen.includes(agent.id)}>
              {agent.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('tokenLimit')}
        <input type="number" min={1} step={1} value={tokens} onInput={field(setTokens)} />
      </label>
      <label>
        {t('limitWindow')}
        <select value={window} onChange={(e) => setWindow((e.target as HTMLSelectElement).value as Window)}>
          {(['day', 'week', 'month'] as const).map((w) => (
            <option key={w} value={w}>
              {t(`window_${w}`)}
            </option>
          ))}
        </select>
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={isAdmin}
          onChange={(e) => setIsAdmin((e.target as HTMLInputElement).checked)}
        />
        {t('adminKey')}
      </label>
      <button type="submit">{t('issueKey')}</button>
      <OutcomeLine outcome={outcome} />
    </form>
  );
}

const limitOf = (key: ApiKey) =>
  key.usageLimit?.tokens
    ? `${key.usageLimit.tokens} ${t('tokens')} / ${t(`window_${key.usageLimit.window}` as Label)}`
    : t('noLimit');

export function ApiKeys({ users }: { users: User[] }) {
  const [keys, setKeys] = useState<ApiKey[]>([]);
  const [agents, setAgents] = useState<Agent[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const { outcome, run, read } = useOutcome();
  const load = () =>
    void read(api<List<ApiKey>>('GET', 'api-keys?limit=200')).then((l) => l && setKeys(l.data));
  useEffect(load, []);
  useEffect(() => {
    void read(api<List<Agent>>('GET', 'agents?limit=200')).then((l) => l && setAgents(l.data));
  }, []);
  const nameOf = (agentId: string) => agents.find((agent) => agent.id === agentId)?.name ?? agentId;
  const emailOf = (userId: string) => users.find((user) => user.id === userId)?.email ?? userId;
  const shown = (key: ApiKey | undefined) => {
    if (key?.key) setSecret(key.key);
    load();
  };
  return (
    <>
      <IssueKeyForm onIssued={shown} agents={agents} />
      {secret && <SecretOnce label={t('keyShownOnce')} secret={secret} />}
      <OutcomeLine outcome={outcome} />
      <ul class="rows">
        {keys.map((key) => (
          <li key={key.id} class={key.revoked ? 'revoked' : undefined}>
            <span>
              <strong>{key.name}</strong> <code>{key.keyPrefix}…</code> · {t('owner')}:{' '}
              {emailOf(key.ownerUserId)} · {t('agentAccess')}:{' '}
              {key.agents === 'all' ? t('allAgents') : key.agents.map(nameOf).join(', ')} · {limitOf(key)}
              {key.isAdmin && ` · ${t('adminKey')}`}
              {key.revoked && ` · ${t('revoked')}`}
            </span>
            {!key.revoked && (
              <span class="actions">
                <button
                  type="button"
                  aria-label={t('rotateKey', { name: key.name })}
                  onClick={() => void run(api<ApiKey>('POST', `api-keys/${key.id}/rotate`)).then(shown)}
                >
                  {t('rotate')}
                </button>
                <button
                  type="button"
                  aria-label={t('revokeKey', { name: key.name })}
                  aria-haspopup="dialog"
                  onClick={() => setRevoking(key)}
                >
                  {t('revoke')}
                </button>
              </span>
            )}
          </li>
        ))}
      </ul>
      {revoking && (
        <ConfirmDialog
          title={t('revokeKeyQuestion', { name: revoking.name })}
          text={t('revokeKeyText')}
          confirm={t('revoke')}
          onConfirm={() => void run(api('DELETE', `api-keys/${revoking.id}`)).then(load)}
          onClose={() => setRevoking(null)}
        />
      )}
    </>
  );
}
