// Uploading a Skill as a file (a SKILL.md, or a zip with its resources) to the Agent, published at once.
import { api } from '../../api';
import { t } from '../../i18n';
import { problem } from './skill-problem';

interface Props {
  readonly agentId: string;
  readonly onUploaded: () => void;
  readonly onError: (sentence: string) => void;
}

export function SkillUpload({ agentId, onUploaded, onError }: Props) {
  const upload = async (event: Event) => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const file = (form.elements.namedItem('skill') as HTMLInputElement).files?.[0];
    if (!file) return;
    const body = new FormData();
    body.append('agentId', agentId);
    body.append('publish', 'true');
    body.append('file', file);
    try {
      await api('POST', 'skills/upload', body);
      form.reset();
      onUploaded();
    } catch (failure) {
      onError(problem(failure));
    }
  };
  return (
    <form onSubmit={(e) => void upload(e)}>
      <label>
        {t('skillFile')}
        <input type="file" name="skill" accept=".md,.zip" required />
      </label>
      <button type="submit">{t('uploadSkill')}</button>
    </form>
  );
}
