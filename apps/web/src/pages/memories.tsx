// The person's memories and each Agent's shared ones: delete one, clear, versions and rollback.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { errorSentence } from '../errors';
import { t } from '../i18n';
import type { Agent, List } from '../state';

interface Memory {
  readonly id: string;
  readonly bucket: 'personal' | 'shared';
  readonly text: string;
  readonly version: number;
}
interface Version {
  readonly version: number;
  readonly text: string | null;
  readonly reason: string;
}

function AgentMemories({ agent }: { agent: Agent }) {
  const [memories, setMemories] = useState<Memory[]>([]);
  const [versions, setVersions] = useState<Record<string, Version[]>>({});
  const [error, setError] = useState<string | null>(null);
  const base = `memory/${agent.id}/memories`;
  const load = () =>
    api<List<Memory>>('GET', `${base}?limit=200`).then(
      (l) => setMemories(l.data),
      () => setMemories([]),
    );
  useEffect(() => void load(), [agent.id]);
  const act = (promise: Promise<unknown>) => {
    setError(null);
    void promise.then(load, (failure: unknown) => {
      setError(errorSentence(failure));
      void load();
    });
  };
  const showVersions = (id: string) =>
    void api<List<Version>>('GET', `${base}/${id}/versions`).then(
      (l) => setVersions((v) => ({ ...v, [id]: l.data })),
      (failure: unknown) => setError(errorSentence(failure)),
    );
  if (memories.length === 0) return null;
  const section = (bucket: 'personal' | 'shared', title: string) => {
    const list = memories.filter((m) => m.bucket === bucket);
    if (list.length === 0) return null;
    return (
      <>
        <h3>{title}</h3>
        <ul>
          {list.map((m) => (
            <li key={m.id}>
              <span>{m.text}</span>{' '}
              <button type="button" onClick={() => act(api('DELETE', `${base}/${m.id}`))}>
                {t('delete')}
              </button>
              <button type="button" onClick={() => showVersions(m.id)}>
                {t('versions')}
              </button>
              {versions[m.id] && (
                <ol>
                  {versions[m.id]!.map((v) => (
                    <li key={v.version}>
                      v{v.version} ({v.reason}): {v.text}{' '}
                      {v.version !== m.version && v.text && (
                        <button
                          type="button"
                          onClick={() => act(api('POST', `${base}/${m.id}/rollback`, { version: v.version }))}
                        >
                          {t('rollback')}
                        </button>
                      )}
                    </li>
                  ))}
                </ol>
              )}
            </li>
          ))}
        </ul>
        <button type="button" onClick={() => act(api('DELETE', `${base}?bucket=${bucket}`))}>
          {t('clear')} ({title})
        </button>
      </>
    );
  };
  return (
    <section>
      <h2>{agent.name}</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {section('personal', t('myMemories'))}
      {section('shared', t('sharedMemories'))}
    </section>
  );
}

export function Memories() {
  const [agents, setAgents] = useState<Agent[] | null>(null);
  useEffect(
    () =>
      void api<List<Agent>>('GET', 'agents?limit=200').then(
        (l) => setAgents(l.data),
        () => setAgents([]),
      ),
    [],
  );
  return (
    <section class="page" aria-labelledby="memories-title">
      <h1 id="memories-title">{t('memories')}</h1>
      {agents === null ? <p>{t('loading')}</p> : agents.map((a) => <AgentMemories key={a.id} agent={a} />)}
    </section>
  );
}
