// An Agent's tags: create one (name and colour), rename it, change its colour, delete it (after a confirmation that
// says it leaves every document). Read-only people see the chips only.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { t, type Label } from '../../i18n';
import { ConfirmDialog } from '../confirm-dialog';
import { ErrorLine } from './error-line';
import { knowledgeError, knowledgePath, type Tag } from './knowledge-kit';
import { TagChip } from './tag-chip';

const DEFAULT_COLOUR = '#1e88e5';

/** A tag's name and colour, each with its label. */
function TagFields(props: {
  labels: readonly [string, string];
  name: string;
  color: string;
  onName: (name: string) => void;
  onColor: (color: string) => void;
}) {
  return (
    <>
      <label>
        {props.labels[0]}
        <input
          required
          maxLength={64}
          value={props.name}
          onInput={(e) => props.onName((e.target as HTMLInputElement).value)}
        />
      </label>
      <label class="colour">
        {props.labels[1]}
        <input
          type="color"
          value={props.color}
          onInput={(e) => props.onColor((e.target as HTMLInputElement).value)}
        />
      </label>
    </>
  );
}

function TagRow({ agentId, tag, onChanged }: { agentId: string; tag: Tag; onChanged: () => void }) {
  const [name, setName] = useState(tag.name);
  const [color, setColor] = useState(tag.color);
  const [error, setError] = useState<Label | null>(null);
  const [confirming, setConfirming] = useState(false);
  const path = knowledgePath(agentId, `tags/${encodeURIComponent(tag.id)}`);
  const run = (method: 'PUT' | 'DELETE', body?: unknown) => {
    setError(null);
    void api(method, path, body).then(onChanged, (failure: unknown) => setError(knowledgeError(failure)));
  };
  const changed = name.trim() !== tag.name || color !== tag.color;
  return (
    <li class="kn-tag-row">
      <TagChip tag={{ ...tag, name, color }} />
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          run('PUT', {
            ...(name.trim() !== tag.name ? { name } : {}),
            ...(color !== tag.color ? { color } : {}),
          });
        }}
      >
        <TagFields
          labels={[t('knTagName', { tag: tag.name }), t('knTagColour', { tag: tag.name })]}
          name={name}
          color={color}
          onName={setName}
          onColor={setColor}
        />
        <button type="submit" disabled={!changed}>
          {t('knSaveTag')}
        </button>{' '}
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          {t('knDeleteTag', { tag: tag.name })}
        </button>
      </form>
      <ErrorLine label={error} />
      {confirming && (
        <ConfirmDialog
          title={t('knDeleteTagTitle', { tag: tag.name })}
          text={t('knDeleteTagText')}
          confirm={t('delete')}
          onConfirm={() => run('DELETE')}
          onClose={() => setConfirming(false)}
        />
      )}
    </li>
  );
}

export function TagManager({
  agentId,
  tags,
  readOnly,
  onChanged,
}: {
  agentId: string;
  tags: readonly Tag[];
  readOnly: boolean;
  onChanged: () => void;
}) {
  const [name, setName] = useState('');
  const [color, setColor] = useState(DEFAULT_COLOUR);
  const [error, setError] = useState<Label | null>(null);
  const create = (event: Event) => {
    event.preventDefault();
    setError(null);
    api('POST', knowledgePath(agentId, 'tags'), { name, color }).then(
      () => {
        setName('');
        onChanged();
      },
      (failure: unknown) => setError(knowledgeError(failure)),
    );
  };
  return (
    <section class="kn-tag-manager" aria-labelledby="kn-tags-title">
      <h3 id="kn-tags-title">{t('knTags')}</h3>
      <p class="note">{t('knTagsPerAgent')}</p>
      {readOnly ? (
        <p class="kn-chips">
          {tags.length === 0 ? t('knNoTags') : tags.map((tag) => <TagChip key={tag.id} tag={tag} />)}
        </p>
      ) : (
        <>
          <ul class="kn-tag-list">
            {tags.map((tag) => (
              <TagRow
                key={`${tag.id}:${tag.name}:${tag.color}`}
                agentId={agentId}
                tag={tag}
                onChanged={onChanged}
              />
            ))}
          </ul>
          <form class="inline-form" onSubmit={create}>
            <TagFields
              labels={[t('newTag'), t('knNewTagColour')]}
              name={name}
              color={color}
              onName={setName}
              onColor={setColor}
            />
            <button type="submit">{t('createTag')}</button>
          </form>
          <ErrorLine label={error} />
        </>
      )}
    </section>
  );
}
