// One Skill of the list: its name, where it applies, its trigger, whether a draft waits; its versions (opened in
// place); and, for whoever may change it, edit, publish and delete.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { language, t } from '../../i18n';
import { SkillVersions } from './skill-versions';
import { skillDescription, type Skill } from './skill-types';

interface Props {
  readonly skill: Skill;
  /** Whether the person may change it (not a Skill every Agent has, and they manage the Agent). */
  readonly ownable: boolean;
  readonly onEdit: () => void;
  readonly onDelete: () => void;
  readonly act: (change: Promise<unknown>) => void;
}

export function SkillRow({ skill, ownable, onEdit, onDelete, act }: Props) {
  const [opened, setOpened] = useState(false);
  return (
    <li>
      <strong>{skill.name}</strong> ({t(`skillPlacement_${skill.placement}`)}) —{' '}
      {skillDescription(skill, language())}{' '}
      {skill.draftVersionId && <span class="badge">{t('skillHasDraft')}</span>}{' '}
      <button type="button" aria-expanded={opened} onClick={() => setOpened(!opened)}>
        {t('skillVersionsOf', { name: skill.name })}
      </button>
      {ownable && (
        <>
          {' '}
          <button type="button" onClick={onEdit}>
            {t('skillEdit', { name: skill.name })}
          </button>
          {skill.draftVersionId && (
            <>
              {' '}
              <button type="button" onClick={() => act(api('POST', `skills/${skill.id}/publish`))}>
                {t('publish')} {skill.name}
              </button>
            </>
          )}{' '}
          <button type="button" class="danger" onClick={onDelete}>
            {t('skillDelete', { name: skill.name })}
          </button>
        </>
      )}
      {opened && (
        <SkillVersions
          skill={skill}
          readOnly={!ownable}
          onActivate={(versionId) => act(api('PUT', `skills/${skill.id}/active-version`, { versionId }))}
        />
      )}
    </li>
  );
}
