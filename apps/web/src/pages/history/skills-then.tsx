// The Skills the Agent had at the chosen moment, each with the version active then, and whether that is still the
// one Agents load now (or the Skill is gone since).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { errorSentence } from '../../errors';
import { language, t } from '../../i18n';
import type { List } from '../../state';
import { skillDescription, type Skill } from '../skills/skill-types';

const skills = (agentId: string, asOf?: string) =>
  api<List<Skill>>(
    'GET',
    `skills?agentId=${encodeURIComponent(agentId)}${asOf ? `&asOf=${encodeURIComponent(asOf)}` : ''}`,
  );

export function SkillsThen({ agentId, asOf }: { agentId: string; asOf: string }) {
  const [then, setThen] = useState<readonly Skill[] | null>(null);
  const [now, setNow] = useState<readonly Skill[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setThen(null);
    void skills(agentId, asOf).then(
      (list) => {
        setThen(list.data);
        setError(null);
      },
      (failure: unknown) => setError(errorSentence(failure)),
    );
    void skills(agentId).then(
      (list) => setNow(list.data),
      () => undefined,
    );
  }, [agentId, asOf]);
  return (
    <section aria-labelledby="skills-then-title">
      <h2 id="skills-then-title">{t('skills')}</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {then && then.length === 0 && <p>{t('historyNoSkills')}</p>}
      {then && then.length > 0 && (
        <ul>
          {then.map((skill) => {
            const current = now.find((candidate) => candidate.id === skill.id);
            return (
              <li key={skill.id}>
                <strong>{skill.name}</strong>{' '}
                {t('historyVersion', { number: String(skill.versions?.[0]?.number ?? '?') })} —{' '}
                {skillDescription(skill, language())}{' '}
                {!current ? (
                  <span class="badge">{t('historyGoneSince')}</span>
                ) : (
                  current.activeVersionId !== skill.activeVersionId && (
                    <span class="badge">{t('historyOtherVersionNow')}</span>
                  )
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
