// The Knowledge an Agent reaches, on its settings page: one level at a time (its own documents, its Space's, Global
// ones), the Agent's tags on each (tags are per Agent, so this is the page that shows and manages them) and its
// section-summary index. Who may not change a level reads it, with the reason.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { t, type Label } from '../../i18n';
import type { Agent, List, Me } from '../../state';
import { KnowledgeArea } from './knowledge-area';
import { knowledgePath, type Scope, type Tag } from './knowledge-kit';
import { SummaryIndexPanel } from './summary-index';
import { TagManager } from './tag-manager';

const LEVELS: readonly (readonly [Scope, Label])[] = [
  ['agent', 'knLevelAgent'],
  ['space', 'knLevelSpace'],
  ['global', 'knLevelGlobal'],
];

export function AgentKnowledge({ agent, me, mayManage }: { agent: Agent; me: Me; mayManage: boolean }) {
  const [scope, setScope] = useState<Scope>('agent');
  const [tags, setTags] = useState<readonly Tag[]>([]);
  const loadTags = () =>
    void api<List<Tag>>('GET', knowledgePath(agent.id, 'tags?limit=200')).then(
      (list) => setTags(list.data),
      () => undefined,
    );
  useEffect(loadTags, [agent.id]);
  const levels = LEVELS.filter(([level]) => level !== 'space' || agent.spaceId);
  const readOnlyReason =
    scope === 'global'
      ? me.role === 'admin'
        ? null
        : t('knReadOnlyGlobal')
      : mayManage
        ? null
        : t(scope === 'space' ? 'knReadOnlySpace' : 'knReadOnlyAgent');
  return (
    <section class="kn" aria-labelledby="knowledge-title">
      <h2 id="knowledge-title">{t('knowledge')}</h2>
      <fieldset class="kn-levels">
        <legend>{t('knLevel')}</legend>
        {levels.map(([level, label]) => (
          <label class="check" key={level}>
            <input
              type="radio"
              name="kn-level"
              value={level}
              checked={scope === level}
              onChange={() => setScope(level)}
            />
            {t(label)}
          </label>
        ))}
      </fieldset>
      <KnowledgeArea agentId={agent.id} scope={scope} readOnlyReason={readOnlyReason} tags={tags} />
      <TagManager agentId={agent.id} tags={tags} readOnly={!mayManage} onChanged={loadTags} />
      <SummaryIndexPanel agentId={agent.id} readOnly={!mayManage} />
    </section>
  );
}
