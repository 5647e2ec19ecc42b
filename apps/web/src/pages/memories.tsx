// What the Agents remember: each Agent's memories of the person (change one, delete one, versions and rollback, clear
// them) and, for the Agent's managers, its shared memories with who contributed each and the answers that used it;
// and clearing everything the person is remembered by, across every Agent, after a confirmation.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { errorSentence } from '../errors';
import { t } from '../i18n';
import type { Agent, List } from '../state';
import { ConfirmDialog } from './confirm-dialog';
import { MemoryItem } from './memories/memory-item';
import type { Memory } from './memories/memory-types';

type Clearing = { readonly title: string; readonly text: string; readonly path: string } | null;

/** The people of the Agent's Space by user id: a shared memory's contributor is shown by name. */
function useNames(agent: Agent): ReadonlyMap<string, string> {
  const [names, setNames] = useState<ReadonlyMap<string, string>>(new Map());
  useEffect(() => {
    if (!agent.spaceId || agent.isPersonal) return;
    void api<List<{ userId: string; name?: string | null; email?: string }>>(
      'GET',
      `spaces/${encodeURIComponent(agent.spaceId)}/members?limit=200`,
    ).then(
      (l) => setNames(new Map(l.data.map((m) => [m.userId, m.name ?? m.email ?? m.userId]))),
      () => undefined,
    );
  }, [agent.id]);
  return names;
}

function AgentMemories({ agent, generation }: { agent: Agent; generation: number }) {
  const [memories, setMemories] = useState<Memory[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [clearing, setClearing] = useState<Clearing>(null);
  const names = useNames(agent);
  const base = `memory/${agent.id}/memories`;
  const load = () =>
    api<List<Memory>>('GET', `${base}?limit=200`).then(
      (l) => setMemories(l.data),
      () => setMemories([]),
    );
  useEffect(() => void load(), [agent.id, generation]);
  const act = (change: Promise<unknown>) => {
    setError(null);
    void change.then(load, (failure: unknown) => {
      setError(errorSentence(failure));
      void load();
    });
  };
  if (memories.length === 0) return null;
  const section = (bucket: 'personal' | 'shared') => {
    const list = memories.filter((m) => m.bucket === bucket);
    if (list.length === 0) return null;
    const title = t(bucket === 'personal' ? 'myMemories' : 'sharedMemories');
    return (
      <>
        <h3>{title}</h3>
        <ul class="memories">
          {list.map((m) => (
            <MemoryItem key={m.id} memory={m} base={base} names={names} act={act} />
          ))}
        </ul>
        <button
          type="button"
          onClick={() =>
            setClearing({
              title: t(bucket === 'personal' ? 'memoryClearMine' : 'memoryClearShared', {
                agent: agent.name,
              }),
              text: t(bucket === 'personal' ? 'memoryClearMineText' : 'memoryClearSharedText'),
              path: `${base}?bucket=${bucket}`,
            })
          }
        >
          {t(bucket === 'personal' ? 'memoryClearMine' : 'memoryClearShared', { agent: agent.name })}
        </button>
      </>
    );
  };
  return (
    <section aria-labelledby={`memories-${agent.id}`}>
      <h2 id={`memories-${agent.id}`}>{agent.name}</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {section('personal')}
      {section('shared')}
      {clearing && (
        <ConfirmDialog
          title={clearing.title}
          text={clearing.text}
          confirm={t('clear')}
          onConfirm={() => act(api('DELETE', clearing.path))}
          onClose={() => setClearing(null)}
        />
      )}
    </section>
  );
}

export function Memories() {
  const [agents, setAgents] = useState<Agent[] | null>(null);
  const [erasing, setErasing] = useState(false);
  const [generation, setGeneration] = useState(0);
  const [error, setError] = useState<string | null>(null);
  useEffect(
    () =>
      void api<List<Agent>>('GET', 'agents?limit=200').then(
        (l) => setAgents(l.data),
        () => setAgents([]),
      ),
    [],
  );
  const eraseAll = () =>
    void api('DELETE', 'memory').then(
      () => setGeneration((g) => g + 1),
      (failure: unknown) => setError(errorSentence(failure)),
    );
  return (
    <section class="page" aria-labelledby="memories-title">
      <h1 id="memories-title">{t('memories')}</h1>
      <p>
        <button type="button" class="danger" onClick={() => setErasing(true)}>
          {t('memoryEraseAll')}
        </button>
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {agents === null ? (
        <p>{t('loading')}</p>
      ) : (
        agents.map((a) => <AgentMemories key={a.id} agent={a} generation={generation} />)
      )}
      {erasing && (
        <ConfirmDialog
          title={t('memoryEraseAll')}
          text={t('memoryEraseAllText')}
          confirm={t('memoryEraseAllConfirm')}
          onConfirm={eraseAll}
          onClose={() => setErasing(false)}
        />
      )}
    </section>
  );
}
