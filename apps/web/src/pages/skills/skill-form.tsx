// Writing a Skill inline: a new one (for this Agent or its whole Space), or the draft of an existing one. Saving a
// draft leaves what Agents load unchanged until it is published.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import { problem } from './skill-problem';
import type { Placement, Skill, SkillVersion } from './skill-types';

interface Props {
  /** The Skill whose draft is edited (its current text), or null for a new one. */
  readonly editing: { readonly skill: Skill; readonly version: SkillVersion } | null;
  readonly agentId: string;
  readonly spaceId: string | null;
  readonly onDone: () => void;
}

export function SkillForm({ editing, agentId, spaceId, onDone }: Props) {
  const [name, setName] = useState(editing?.version.name ?? '');
  const [description, setDescription] = useState(editing?.version.description ?? '');
  const [instructions, setInstructions] = useState(editing?.version.instructions ?? '');
  const [where, setWhere] = useState<'agent' | 'space'>('agent');
  const [publish, setPublish] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      if (editing) {
        await api('PUT', `skills/${editing.skill.id}`, { name, description, instructions });
        if (publish) await api('POST', `skills/${editing.skill.id}/publish`);
      } else {
        const placement: Placement = where === 'space' && spaceId ? { spaceId } : { agentId };
        await api('POST', 'skills', { ...placement, name, description, instructions, publish });
      }
      onDone();
    } catch (failure) {
      setError(problem(failure));
    }
  };
  const id = editing ? `skill-form-${editing.skill.id}` : 'skill-form-new';
  return (
    <form class="skill-form" aria-labelledby={`${id}-title`} onSubmit={(e) => void save(e)}>
      <h3 id={`${id}-title`}>
        {editing ? t('skillEditDraft', { name: editing.skill.name }) : t('skillNew')}
      </h3>
      <label>
        {t('skillName')}
        <input
          value={name}
          required
          pattern="[a-z0-9]+(-[a-z0-9]+)*"
          maxLength={64}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        {t('skillDescription')}
        <input
          value={description}
          required
          onInput={(e) => setDescription((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        {t('skillInstructions')}
        <textarea
          rows={10}
          value={instructions}
          required
          onInput={(e) => setInstructions((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      {!editing && spaceId && (
        <fieldset>
          <legend>{t('skillPlacement')}</legend>
          <label>
            <input type="radio" name="where" checked={where === 'agent'} onChange={() => setWhere('agent')} />
            {t('skillForAgent')}
          </label>
          <label>
            <input type="radio" name="where" checked={where === 'space'} onChange={() => setWhere('space')} />
            {t('skillForSpace')}
          </label>
        </fieldset>
      )}
      <label>
        <input
          type="checkbox"
          checked={publish}
          onChange={(e) => setPublish((e.target as HTMLInputElement).checked)}
        />
        {t('skillPublishNow')}
      </label>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit">{editing ? t('skillSaveDraft') : t('skillCreate')}</button>{' '}
      <button type="button" onClick={onDone}>
        {t('cancel')}
      </button>
    </form>
  );
}
