// One memory: its text (changed in place), its versions with a rollback to any earlier one, and, for the Agent's
// managers, who contributed a shared memory and how often answers used it; the answers that used it, as far as the
// person may see them.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { errorSentence } from '../../errors';
import { dateTime } from '../../dates';
import { t } from '../../i18n';
import type { List } from '../../state';
import type { Memory, MemoryVersion } from './memory-types';
import { AnswersUsing } from '../provenance/answers-using';

interface Props {
  readonly memory: Memory;
  /** Where its routes are: `memory/{agentId}/memories`. */
  readonly base: string;
  /** The names of the people of the Agent's Space, by user id (contributors are shown by name where known). */
  readonly names: ReadonlyMap<string, string>;
  /** Runs a change, then reloads the list (or shows the refusal). */
  readonly act: (change: Promise<unknown>) => void;
}

export function MemoryItem({ memory, base, names, act }: Props) {
  const [editing, setEditing] = useState<string | null>(null);
  const [versions, setVersions] = useState<readonly MemoryVersion[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const showVersions = () =>
    void api<List<MemoryVersion>>('GET', `${base}/${memory.id}/versions`).then(
      (l) => setVersions(l.data),
      (failure: unknown) => setError(errorSentence(failure)),
    );
  const save = (event: Event) => {
    event.preventDefault();
    act(api('PATCH', `${base}/${memory.id}`, { text: editing }));
    setEditing(null);
  };
  const contributor = memory.contributor;
  const answers = memory.answers ?? [];
  return (
    <li class="memory">
      {editing === null ? (
        <span>{memory.text}</span>
      ) : (
        <form onSubmit={save}>
          <label>
            {t('memoryText')}
            <textarea
              rows={2}
              value={editing}
              required
              onInput={(e) => setEditing((e.target as HTMLTextAreaElement).value)}
            />
          </label>
          <button type="submit">{t('save')}</button>{' '}
          <button type="button" onClick={() => setEditing(null)}>
            {t('cancel')}
          </button>
        </form>
      )}
      {contributor && (
        <p class="note">
          {t(`memoryVia_${contributor.via}`, {
            name: (contributor.userId && names.get(contributor.userId)) ?? t('memorySomeone'),
          })}{' '}
          {answers.length > 0
            ? t('memoryUsedIn', { count: String(answers.length), at: dateTime(answers.at(-1)!.at) })
            : t('memoryNotUsed')}
        </p>
      )}
      <div class="actions">
        {editing === null && (
          <button
            type="button"
            aria-label={`${t('edit')}: ${memory.text}`}
            onClick={() => setEditing(memory.text)}
          >
            {t('edit')}
          </button>
        )}
        <button
          type="button"
          aria-label={`${t('delete')}: ${memory.text}`}
          onClick={() => act(api('DELETE', `${base}/${memory.id}`))}
        >
          {t('delete')}
        </button>
        <button
          type="button"
          aria-expanded={versions !== null}
          aria-label={`${t('versions')}: ${memory.text}`}
          onClick={() => (versions ? setVersions(null) : showVersions())}
        >
          {t('versions')}
        </button>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <AnswersUsing source={`memory:${memory.id}`} label={memory.text} />
      {versions && (
        <ol aria-label={t('memoryVersionsOf', { text: memory.text })}>
          {versions.map((v) => (
            <li key={v.version}>
              v{v.version} ({t(`memoryReason_${v.reason}`)}): {v.text ?? '—'}{' '}
              {v.version !== memory.version && v.text && (
                <button
                  type="button"
                  onClick={() => act(api('POST', `${base}/${memory.id}/rollback`, { version: v.version }))}
                >
                  {t('memoryRollbackTo', { version: String(v.version) })}
                </button>
              )}
            </li>
          ))}
        </ol>
      )}
    </li>
  );
}
