// An Agent's Skills (its own, its Space's and the defaults): upload one (a SKILL.md or a zip) to the Agent, publish
// a draft, and roll back to an earlier published version.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { errorSentence } from '../errors';
import { t } from '../i18n';
import type { List } from '../state';

interface Version {
  readonly id: string;
  readonly number: number;
  readonly state: 'draft' | 'published';
}
interface Skill {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly placement: 'space' | 'agent' | 'global';
  readonly source: string;
  readonly activeVersionId: string | null;
  readonly draftVersionId: string | null;
  readonly versions?: readonly Version[];
}

export function Skills({ agentId, readOnly }: { agentId: string; readOnly: boolean }) {
  const [skills, setSkills] = useState<Skill[]>([]);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<List<Skill>>('GET', `skills?agentId=${encodeURIComponent(agentId)}&limit=200`).then(
      (l) => setSkills(l.data),
      (e: unknown) => setError(errorSentence(e)),
    );
  useEffect(() => void load(), [agentId]);
  const act = (promise: Promise<unknown>) =>
    void promise.then(load, (e: unknown) => {
      setError(errorSentence(e));
      void load();
    });
  const upload = async (event: Event) => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const file = (form.elements.namedItem('skill') as HTMLInputElement).files?.[0];
    if (!file) return;
    const body = new FormData();
    body.append('agentId', agentId);
    body.append('publish', 'true');
    body.append('file', file);
    setError(null);
    try {
      await api('POST', 'skills/upload', body);
      form.reset();
      void load();
    } catch (failure) {
      setError(errorSentence(failure));
    }
  };
  return (
    <section aria-labelledby="skills-title">
      <h2 id="skills-title">{t('skills')}</h2>
      {!readOnly && (
        <form onSubmit={(e) => void upload(e)}>
          <label>
            {t('skillFile')}
            <input type="file" name="skill" accept=".md,.zip" required />
          </label>
          <button type="submit">{t('uploadSkill')}</button>
        </form>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <ul class="skills">
        {skills.map((skill) => {
          const published = (skill.versions ?? []).filter((v) => v.state === 'published');
          return (
            <li key={skill.id}>
              <strong>{skill.name}</strong> ({skill.placement}) — {skill.description}
              {!readOnly && skill.draftVersionId && skill.placement !== 'global' && (
                <button type="button" onClick={() => act(api('POST', `skills/${skill.id}/publish`))}>
                  {t('publish')} {skill.name}
                </button>
              )}
              {!readOnly &&
                skill.placement !== 'global' &&
                published
                  .filter((v) => v.id !== skill.activeVersionId)
                  .map((v) => (
                    <button
                      type="button"
                      key={v.id}
                      onClick={() =>
                        act(api('PUT', `skills/${skill.id}/active-version`, { versionId: v.id }))
                      }
                    >
                      {t('rollback')} {skill.name} v{v.number}
                    </button>
                  ))}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
