// A Space's prompt library (`/space/{spaceId}/prompts`): its members read and search it; its editors (and owners,
// and admins) create, edit and delete prompts, each change a new version on the API's side. The chat inserts a
// prompt into the message box through the picker (prompt-picker.tsx).
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { errorSentence } from '../errors';
import { t } from '../i18n';
import { linkTo } from '../router';
import type { List, Me, Space } from '../state';
import { loadPrompts, matches, type Prompt } from './prompt-picker';

interface Draft {
  readonly id: string | null;
  readonly title: string;
  readonly text: string;
  readonly description: string;
  readonly tags: string;
}
const EMPTY: Draft = { id: null, title: '', text: '', description: '', tags: '' };

const failed = (error: unknown): string =>
  errorSentence(error, { space_change_denied: 'refusedPromptChange' });

// Over 100 lines on purpose: one page component: the prompt list, editor and versions share the library's
// state.
export function Prompts({ spaceId, me }: { spaceId: string; me: Me }) {
  const [space, setSpace] = useState<Space | null>(null);
  const [missing, setMissing] = useState(false);
  const [prompts, setPrompts] = useState<Prompt[]>([]);
  const [own, setOwn] = useState<string | null>(null);
  const [search, setSearch] = useState('');
  const [draft, setDraft] = useState<Draft | null>(null);
  const [error, setError] = useState<string | null>(null);
  const path = `spaces/${encodeURIComponent(spaceId)}/prompts`;
  const load = () =>
    loadPrompts(spaceId).then(setPrompts, (e: unknown) =>
      e instanceof ApiError && e.status === 404 ? setMissing(true) : setError(failed(e)),
    );
  useEffect(() => {
    void api<Space>('GET', `spaces/${encodeURIComponent(spaceId)}`).then(setSpace, () => setMissing(true));
    void api<List<{ userId: string; role: string }>>(
      'GET',
      `spaces/${encodeURIComponent(spaceId)}/members?limit=200`,
    ).then(
      (page) => setOwn(page.data.find((m) => m.userId === me.id)?.role ?? null),
      () => undefined,
    );
    void load();
  }, [spaceId]);
  const editor = me.role === 'admin' || own === 'editor' || own === 'owner';

  const save = async (event: Event) => {
    event.preventDefault();
    if (!draft) return;
    setError(null);
    const body = {
      title: draft.title,
      text: draft.text,
      description: draft.description,
      tags: draft.tags
        .split(',')
        .map((tag) => tag.trim())
        .filter(Boolean),
    };
    try {
      if (draft.id) await api('PATCH', `${path}/${encodeURIComponent(draft.id)}`, body);
      else await api('POST', path, body);
      setDraft(null);
    } catch (failure) {
      setError(failed(failure));
    }
    await load();
  };
  const remove = async (prompt: Prompt) => {
    setError(null);
    try {
      await api('DELETE', `${path}/${encodeURIComponent(prompt.id)}`);
    } catch (failure) {
      setError(failed(failure));
    }
    await load();
  };
  const field = (name: keyof Omit<Draft, 'id'>) => (e: Event) =>
    setDraft((d) => (d ? { ...d, [name]: (e.target as HTMLInputElement).value } : d));

  if (missing)
    return (
      <section class="page" aria-labelledby="prompts-title">
        <h1 id="prompts-title">{t('notFound')}</h1>
        <p>{t('notFoundText')}</p>
      </section>
    );
  const shown = prompts.filter((p) => matches(p, search));
  return (
    <section class="page" aria-labelledby="prompts-title">
      <h1 id="prompts-title">
        {t('promptLibrary')}
        {space ? `: ${space.name}` : ''}
      </h1>
      <p>
        <a href={`/space/${spaceId}/members`} onClick={linkTo(`/space/${spaceId}/members`)}>
          {t('members')}
        </a>
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <label>
        {t('searchPrompts')}
        <input
          type="search"
          value={search}
          onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
        />
      </label>
      {editor && !draft && (
        <button type="button" onClick={() => setDraft(EMPTY)}>
          {t('newPrompt')}
        </button>
      )}
      {draft && (
        <form class="prompt-form" onSubmit={(e) => void save(e)} aria-labelledby="prompt-form-title">
          <h2 id="prompt-form-title">{draft.id ? t('editPrompt') : t('newPrompt')}</h2>
          <label>
            {t('title')}
            <input required maxLength={200} value={draft.title} onInput={field('title')} />
          </label>
          <label>
            {t('promptText')}
            <textarea required rows={6} value={draft.text} onInput={field('text')} />
          </label>
          <label>
            {t('description')}
            <input maxLength={2000} value={draft.description} onInput={field('description')} />
          </label>
          <label>
            {t('tagsCommaSeparated')}
            <input value={draft.tags} onInput={field('tags')} />
          </label>
          <button type="submit">{t('save')}</button>{' '}
          <button type="button" onClick={() => setDraft(null)}>
            {t('cancel')}
          </button>
        </form>
      )}
      {shown.length === 0 && <p>{t('noPrompts')}</p>}
      <ul class="prompt-list">
        {shown.map((p) => (
          <li key={p.id} data-prompt={p.id}>
            <h2>{p.title}</h2>
            {p.description && <p class="note">{p.description}</p>}
            <pre class="prompt-text">{p.text}</pre>
            <p class="note">
              {p.tags.length > 0 && `${t('tags')}: ${p.tags.join(', ')} · `}
              {t('versionN', { version: String(p.version) })}
            </p>
            {editor && (
              <div class="actions">
                <button
                  type="button"
                  aria-label={`${t('edit')} ${p.title}`}
                  onClick={() =>
                    setDraft({
                      id: p.id,
                      title: p.title,
                      text: p.text,
                      description: p.description,
                      tags: p.tags.join(', '),
                    })
                  }
                >
                  {t('edit')}
                </button>
                <button type="button" aria-label={`${t('delete')} ${p.title}`} onClick={() => void remove(p)}>
                  {t('delete')}
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
