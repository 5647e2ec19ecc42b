// A Skill's versions: which one Agents load, the draft, and any two side by side (name, trigger and instructions), so
// a person sees what publishing or rolling back changes before doing it; the answers that loaded each published one.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import type { Skill, SkillVersion } from './skill-types';
import { AnswersUsing } from '../provenance/answers-using';

function VersionText({ skillId, versionId }: { skillId: string; versionId: string }) {
  const [version, setVersion] = useState<SkillVersion | null>(null);
  useEffect(() => {
    void api<SkillVersion>('GET', `skills/${skillId}/versions/${versionId}`).then(setVersion, () =>
      setVersion(null),
    );
  }, [skillId, versionId]);
  if (!version) return <p>{t('loading')}</p>;
  return (
    <article class="skill-version" aria-label={t('skillVersionNumber', { number: String(version.number) })}>
      <h4>
        v{version.number} · {t(version.state === 'draft' ? 'skillDraft' : 'skillPublished')}
      </h4>
      <p>
        <strong>{version.name}</strong> — {version.description}
      </p>
      <pre>{version.instructions}</pre>
    </article>
  );
}

interface Props {
  readonly skill: Skill;
  /** Whether the person may not choose the version Agents load (the list only). */
  readonly readOnly: boolean;
  readonly onActivate: (versionId: string) => void;
}

/** A list answers Skills without their versions: the Skill itself has them. */
export function SkillVersions({ skill: listed, readOnly, onActivate }: Props) {
  const [skill, setSkill] = useState<Skill>(listed);
  useEffect(() => {
    void api<Skill>('GET', `skills/${listed.id}`).then(setSkill, () => undefined);
  }, [listed.id, listed.activeVersionId, listed.draftVersionId]);
  const versions = skill.versions ?? [];
  const [left, setLeft] = useState('');
  const [right, setRight] = useState('');
  // The version Agents load and the newest one, once the versions are known.
  useEffect(() => {
    setLeft(skill.activeVersionId ?? versions[0]?.id ?? '');
    setRight(skill.draftVersionId ?? versions.at(-1)?.id ?? '');
  }, [skill]);
  const pick = (value: string, set: (id: string) => void, label: string) => (
    <label>
      {label}
      <select value={value} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
        {versions.map((v) => (
          <option key={v.id} value={v.id}>
            v{v.number} ({t(v.state === 'draft' ? 'skillDraft' : 'skillPublished')})
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <section class="skill-versions" aria-label={t('skillVersionsOf', { name: skill.name })}>
      <ul>
        {versions.map((v) => (
          <li key={v.id}>
            v{v.number} · {t(v.state === 'draft' ? 'skillDraft' : 'skillPublished')}
            {v.id === skill.activeVersionId && <span class="badge">{t('skillActive')}</span>}
            {v.state === 'published' && v.id !== skill.activeVersionId && !readOnly && (
              <button type="button" onClick={() => onActivate(v.id)}>
                {t('skillActivate', { number: String(v.number) })}
              </button>
            )}
            {v.state === 'published' && (
              <AnswersUsing source={`skill:${skill.id}@${v.number}`} label={`${skill.name} v${v.number}`} />
            )}
          </li>
        ))}
      </ul>
      {versions.length > 1 && (
        <>
          <div class="compare-pickers">
            {pick(left, setLeft, t('skillCompareLeft'))}
            {pick(right, setRight, t('skillCompareRight'))}
          </div>
          <div class="side-by-side">
            {left && <VersionText skillId={skill.id} versionId={left} />}
            {right && <VersionText skillId={skill.id} versionId={right} />}
          </div>
        </>
      )}
    </section>
  );
}
