// What an answer's turn did with memory, at the answer: "Saved to memory" for each memory it kept, its shared-memory
// proposals with Confirm / Save for me only / Discard, and the notice when screening refused a memory as unsafe.
import { useState } from 'preact/hooks';
import { t } from '../../i18n';
import { ProposalCard } from './proposals';
import type { ChatMessage } from './types';

export function MemoryNotes({ agentId, message }: { agentId: string; message: ChatMessage }) {
  const [answered, setAnswered] = useState<ReadonlySet<string>>(new Set());
  const memory = message.memory;
  if (!memory) return null;
  return (
    <div class="memory-notes">
      {memory.saved?.map((saved) => (
        <p key={saved.id} class="note saved-memory">
          {t('savedToMemory', { text: saved.text })}
        </p>
      ))}
      {memory.proposals
        ?.filter((proposal) => !answered.has(proposal.id))
        .map((proposal) => (
          <ProposalCard
            key={proposal.id}
            agentId={agentId}
            proposal={proposal}
            onAnswered={() => setAnswered((ids) => new Set([...ids, proposal.id]))}
          />
        ))}
      {memory.flagged && (
        <p role="status" class="flagged">
          {memory.flagged}
        </p>
      )}
    </div>
  );
}
