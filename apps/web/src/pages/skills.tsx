// An Agent's Skills (its own, its Space's and the defaults): write one inline or upload a SKILL.md or zip, edit its
// draft, publish it, see its versions side by side and choose the one Agents load, install from the marketplace, and
// delete one after a confirmation. A person who may not manage the Agent sees the list only.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { t } from '../i18n';
import type { Agent, List } from '../state';
import { ConfirmDialog } from './confirm-dialog';
import { SkillForm } from './skills/skill-form';
import { Marketplace } from './skills/skill-marketplace';
import { problem } from './skills/skill-problem';
import { SkillUpload } from './skills/skill-upload';
import { SkillRow } from './skills/skill-row';
import type { Skill, SkillVersion } from './skills/skill-types';

type Editing = { readonly skill: Skill; readonly version: SkillVersion } | 'new' | null;

export function Skills({ agentId, readOnly }: { agentId: string; readOnly: boolean }) {
  const [skills, setSkills] = useState<Skill[]>([]);
  const [spaceId, setSpaceId] = useState<string | null>(null);
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<Skill | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<List<Skill>>('GET', `skills?agentId=${encodeURIComponent(agentId)}&limit=200`).then(
      (l) => setSkills(l.data),
      (failure: unknown) => setError(problem(failure)),
    );
  useEffect(() => {
    void load();
    void api<Agent>('GET', `agents/${encodeURIComponent(agentId)}`).then(
      (agent) => setSpaceId(agent.isPersonal ? null : agent.spaceId),
      () => setSpaceId(null),
    );
  }, [agentId]);
  const act = (promise: Promise<unknown>) => {
    setError(null);
    void promise.then(load, (failure: unknown) => {
      setError(problem(failure));
      void load();
    });
  };
  const editDraft = (skill: Skill) =>
    void api<SkillVersion>(
      'GET',
      `skills/${skill.id}/versions/${skill.draftVersionId ?? skill.activeVersionId}`,
    ).then(
      (version) => setEditing({ skill, version }),
      (failure: unknown) => setError(problem(failure)),
    );
  const done = () => {
    setEditing(null);
    void load();
  };
  const ownable = (skill: Skill) => !readOnly && skill.placement !== 'global';
  return (
    <section aria-labelledby="skills-title">
      <h2 id="skills-title">{t('skills')}</h2>
      {!readOnly && editing === null && (
        <p>
          <button type="button" onClick={() => setEditing('new')}>
            {t('skillNew')}
          </button>
        </p>
      )}
      {editing !== null && (
        <SkillForm
          editing={editing === 'new' ? null : editing}
          agentId={agentId}
          spaceId={spaceId}
          onDone={done}
        />
      )}
      {!readOnly && <SkillUpload agentId={agentId} onUploaded={() => void load()} onError={setError} />}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <ul class="skills">
        {skills.map((skill) => (
          <SkillRow
            key={skill.id}
            skill={skill}
            ownable={ownable(skill)}
            onEdit={() => editDraft(skill)}
            onDelete={() => setDeleting(skill)}
            act={act}
          />
        ))}
      </ul>
      {!readOnly && (
        <Marketplace agentId={agentId} spaceId={spaceId} installed={skills} onChanged={() => void load()} />
      )}
      {deleting && (
        <ConfirmDialog
          title={t('skillDeleteTitle', { name: deleting.name })}
          text={t(deleting.placement === 'space' ? 'skillDeleteSpaceText' : 'skillDeleteAgentText')}
          confirm={t('skillDelete', { name: deleting.name })}
          onConfirm={() => act(api('DELETE', `skills/${deleting.id}`))}
          onClose={() => setDeleting(null)}
        />
      )}
    </section>
  );
}
