// The marketplace: the Skills an admin listed for everyone, installed into this Agent or its Space (a copy that
// follows its source), and uninstalled again by deleting the installed copy.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import type { List } from '../../state';
import { problem } from './skill-problem';
import type { Skill } from './skill-types';

interface Props {
  readonly agentId: string;
  readonly spaceId: string | null;
  /** The Agent's Skills: what is installed already. */
  readonly installed: readonly Skill[];
  readonly onChanged: () => void;
}

export function Marketplace({ agentId, spaceId, installed, onChanged }: Props) {
  const [listed, setListed] = useState<Skill[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api<List<Skill>>('GET', 'marketplace/skills').then(
      (l) => setListed(l.data),
      (failure) => setError(problem(failure)),
    );
  }, []);
  const act = (promise: Promise<unknown>) =>
    void promise.then(onChanged, (failure) => setError(problem(failure)));
  const installTo = (skill: Skill, target: { agentId: string } | { spaceId: string }) =>
    act(api('POST', `marketplace/skills/${skill.id}/install`, target));
  return (
    <section aria-labelledby="marketplace-title">
      <h3 id="marketplace-title">{t('marketplace')}</h3>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {listed.length === 0 && <p class="note">{t('marketplaceEmpty')}</p>}
      <ul class="skills">
        {listed.map((skill) => {
          const copy = installed.find((mine) => mine.sourceId === skill.id);
          return (
            <li key={skill.id}>
              <strong>{skill.name}</strong> — {skill.description}{' '}
              {copy ? (
                <button type="button" onClick={() => act(api('DELETE', `skills/${copy.id}`))}>
                  {t('skillUninstall', { name: skill.name })}
                </button>
              ) : (
                <>
                  <button type="button" onClick={() => installTo(skill, { agentId })}>
                    {t('skillInstallAgent', { name: skill.name })}
                  </button>{' '}
                  {spaceId && (
                    <button type="button" onClick={() => installTo(skill, { spaceId })}>
                      {t('skillInstallSpace', { name: skill.name })}
                    </button>
                  )}
                </>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
