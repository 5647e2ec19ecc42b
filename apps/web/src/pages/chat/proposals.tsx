// The Agent's memory proposals waiting for the person's answer (confirm for everyone, keep for me, discard), reloaded
// when a turn proposes new ones (`version` changes). A proposal its answer shows inline (memory-notes.tsx) is not
// repeated here; the others (an earlier visit's) wait below the conversation.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import type { List } from '../../state';
import type { Proposal } from './types';

export function ProposalCard({
  agentId,
  proposal,
  onAnswered,
}: {
  agentId: string;
  proposal: Proposal;
  onAnswered: () => void;
}) {
  const answer = (kind: 'confirm' | 'personal' | 'discard') =>
    void api('POST', `memory/${agentId}/proposals/${proposal.id}`, { answer: kind }).then(
      onAnswered,
      onAnswered,
    );
  return (
    <div class="proposal" role="group" aria-label={t('memoryProposal')}>
      <p>
        <strong>{t('memoryProposal')}</strong> {proposal.text}
      </p>
      <button type="button" onClick={() => answer('confirm')}>
        {t('confirm')}
      </button>
      <button type="button" onClick={() => answer('personal')}>
        {t('saveForMe')}
      </button>
      <button type="button" onClick={() => answer('discard')}>
        {t('discard')}
      </button>
    </div>
  );
}

export function Proposals({
  agentId,
  version,
  inline,
}: {
  agentId: string;
  version: number;
  /** The ids of the proposals shown at their answers. */
  inline: ReadonlySet<string>;
}) {
  const [proposals, setProposals] = useState<Proposal[]>([]);
  const load = () =>
    api<List<Proposal>>('GET', `memory/${agentId}/proposals`).then(
      (list) => setProposals(list.data),
      () => setProposals([]),
    );
  useEffect(() => void load(), [agentId, version]);
  return (
    <>
      {proposals
        .filter((p) => !inline.has(p.id))
        .map((p) => (
          <ProposalCard key={p.id} agentId={agentId} proposal={p} onAnswered={() => void load()} />
        ))}
    </>
  );
}
