// An Agent's settings page: what the person builds (name, model, system prompt, switches, embed: loaded on first use)
// and the Agent's Knowledge (upload with live status and the ingestion log) and Skills. Someone who may use the Agent
// but not manage it reads them, with the reason, and is offered nothing to change.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { errorSentence } from '../errors';
import { t } from '../i18n';
import { lazy } from '../lazy';
import { linkTo } from '../router';
import type { List, Me } from '../state';
import { Skills } from './skills';
import { useMayManage } from './may-manage';
import type { AgentDetails } from './build/build-kit';

const AgentBuilder = lazy(() => import('./build/agent-builder'), 'AgentBuilder');

interface Document {
  readonly id: string;
  readonly name: string;
  readonly status: 'Pending' | 'Processing' | 'Ready' | 'Failed';
  readonly tags: readonly string[];
}

interface Tag {
  readonly id: string;
  readonly name: string;
}

// Over 100 lines on purpose: one component: the document list, uploads and tags share the Agent's Knowledge
// state.
function Knowledge({ agentId, readOnly }: { agentId: string; readOnly: boolean }) {
  const [documents, setDocuments] = useState<Document[]>([]);
  const [log, setLog] = useState<{ id: string; lines: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const base = `knowledge/${agentId}/documents`;
  const load = () =>
    api<List<Document>>('GET', `${base}?limit=200`).then(
      (l) => setDocuments(l.data),
      () => undefined,
    );
  const [tags, setTags] = useState<Tag[]>([]);
  const [tagName, setTagName] = useState('');
  const loadTags = () =>
    api<List<Tag>>('GET', `knowledge/${agentId}/tags?limit=200`).then(
      (l) => setTags(l.data),
      () => undefined,
    );
  useEffect(() => {
    void load();
    void loadTags();
  }, [agentId]);
  const createTag = async (event: Event) => {
    event.preventDefault();
    try {
      await api('POST', `knowledge/${agentId}/tags`, { name: tagName });
      setTagName('');
      void loadTags();
    } catch (failure) {
      setError(errorSentence(failure));
    }
  };
  const toggleTag = (document: Document, tag: Tag) =>
    void api(
      document.tags.includes(tag.id) ? 'DELETE' : 'POST',
      `${base}/${document.id}/tags/${tag.id}`,
    ).then(load, (failure: unknown) => setError(errorSentence(failure)));
  // Live status: poll while a document is still on its way.
  useEffect(() => {
    if (!documents.some((d) => d.status === 'Pending' || d.status === 'Processing')) return;
    const timer = setTimeout(() => void load(), 1000);
    return () => clearTimeout(timer);
  }, [documents]);
  const upload = async (event: Event) => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const input = form.elements.namedItem('file') as HTMLInputElement;
    const file = input.files?.[0];
    if (!file) return;
    const body = new FormData();
    body.append('name', file.name);
    body.append('file', file);
    setError(null);
    try {
      await api('POST', base, body);
      form.reset();
      void load();
    } catch (failure) {
      setError(errorSentence(failure));
    }
  };
  const showLog = (id: string) =>
    void api<unknown>('GET', `${base}/${id}/log`).then((answer) =>
      setLog({ id, lines: typeof answer === 'string' ? answer : JSON.stringify(answer, null, 2) }),
    );
  return (
    <section aria-labelledby="knowledge-title">
      <h2 id="knowledge-title">{t('knowledge')}</h2>
      {!readOnly && (
        <form onSubmit={(e) => void upload(e)}>
          <label>
            {t('document')}
            <input type="file" name="file" required />
          </label>
          <button type="submit">{t('upload')}</button>
        </form>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <table>
        <thead>
          <tr>
            <th scope="col">{t('name')}</th>
            <th scope="col">{t('status')}</th>
            <th scope="col">{t('tags')}</th>
            <th scope="col">{t('log')}</th>
          </tr>
        </thead>
        <tbody>
          {documents.map((d) => (
            <tr key={d.id}>
              <td>{d.name}</td>
              <td class={`status ${d.status}`}>{d.status}</td>
              <td>
                {tags.map((tag) => (
                  <label class="check" key={tag.id}>
                    <input
                      type="checkbox"
                      checked={d.tags.includes(tag.id)}
                      disabled={readOnly}
                      onChange={() => toggleTag(d, tag)}
                    />
                    {tag.name}
                  </label>
                ))}
              </td>
              <td>
                <button type="button" onClick={() => showLog(d.id)}>
                  {t('log')} {d.name}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {log && <pre class="log">{log.lines}</pre>}
      {!readOnly && (
        <form onSubmit={(e) => void createTag(e)}>
          <label>
            {t('newTag')}
            <input
              required
              value={tagName}
              onInput={(e) => setTagName((e.target as HTMLInputElement).value)}
            />
          </label>
          <button type="submit">{t('createTag')}</button>
        </form>
      )}
    </section>
  );
}

export function AgentSettings({ agentId, me }: { agentId: string; me: Me }) {
  const [agent, setAgent] = useState<AgentDetails | null>(null);
  useEffect(
    () => void api<AgentDetails>('GET', `agents/${agentId}`).then(setAgent, () => undefined),
    [agentId],
  );
  const mayManage = useMayManage(agent, me);
  if (!agent || mayManage === null) return <p class="page">{t('loading')}</p>;
  const readOnly = !mayManage;
  return (
    <section class="page build" aria-labelledby="settings-title">
      <h1 id="settings-title">
        {agent.name}: {t('settings')}
      </h1>
      {readOnly && (
        <p class="note read-only" role="note">
          {t('readOnlySettings')}
        </p>
      )}
      <p>
        <a href={`/agent/${agent.id}/history`} onClick={linkTo(`/agent/${agent.id}/history`)}>
          {t('historyLink')}
        </a>
      </p>
      <AgentBuilder agent={agent} me={me} onSaved={setAgent} />
      <Knowledge agentId={agent.id} readOnly={readOnly} />
      <Skills agentId={agent.id} readOnly={readOnly} />
    </section>
  );
}
