// A Space's shared documents on its page (`scope=space`: every Agent of the Space searches them). The API reaches a
// level through an Agent, so the Space's first Agent carries the requests; a Space without Agents has none to offer.
// Tags are per Agent, so they are shown and managed on each Agent's page, not here.
import { t } from '../../i18n';
import type { Agent } from '../../state';
import { KnowledgeArea } from './knowledge-area';

export function SpaceKnowledge({ agents, mayChange }: { agents: readonly Agent[]; mayChange: boolean }) {
  const through = agents[0];
  return (
    <section class="kn" aria-labelledby="space-knowledge-title">
      <h2 id="space-knowledge-title">{t('knSpaceTitle')}</h2>
      <p class="note">{t('knSpaceHint')}</p>
      {through ? (
        <KnowledgeArea
          agentId={through.id}
          scope="space"
          readOnlyReason={mayChange ? null : t('knReadOnlySpace')}
          tags={null}
        />
      ) : (
        <p class="readonly-reason">{t('knNeedsAgent')}</p>
      )}
    </section>
  );
}
