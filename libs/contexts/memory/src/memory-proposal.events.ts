// The shared-memory proposal aggregate: its events, state and evolve. When a turn yields a fact worth sharing with
// everyone who uses the Agent, it is not shared silently: it is proposed to the user whose turn caused it, who
// confirms it (a shared memory), keeps it personal, or discards it. Screening may refuse it instead. Its text is
// sealed like every memory text.
import type { DomainEvent } from '#kernel';
import type { Sealed } from './memory.events.js';

type Id = { readonly proposalId: string };

export type MemoryProposalEvent =
  | DomainEvent<
      'MemoryProposed',
      Id & {
        readonly agentId: string;
        /** The user whose turn caused it: the only one who sees and answers it. */
        readonly userId: string;
        readonly text: Sealed;
        readonly conversationId: string;
        readonly messageId: string;
      }
    >
  /** memoryId: the shared memory the confirmation creates. */
  | DomainEvent<'MemoryProposalConfirmed', Id & { readonly memoryId: string }>
  /** memoryId: the personal memory of the user it becomes instead. */
  | DomainEvent<'MemoryProposalKeptPersonal', Id & { readonly memoryId: string }>
  | DomainEvent<'MemoryProposalDiscarded', Id>
  /** Screening refused it: the reasons, never the text. */
  | DomainEvent<'MemoryProposalFlagged', Id & { readonly reasons: readonly string[] }>;

export type MemoryProposalEventType = MemoryProposalEvent['type'];

export type MemoryProposalStatus = 'pending' | 'confirmed' | 'kept_personal' | 'discarded' | 'flagged';

export type MemoryProposalState =
  | { readonly status: 'absent' }
  | {
      readonly status: MemoryProposalStatus;
      readonly proposalId: string;
      readonly agentId: string;
      readonly userId: string;
      /** The memory an answer created (confirmed or kept personal), else null. */
      readonly memoryId: string | null;
    };

export const memoryProposalStreamId = (proposalId: string): string => `memory-proposal-${proposalId}`;

export const initialMemoryProposalState = (): MemoryProposalState => ({ status: 'absent' });

export function evolveMemoryProposal(
  state: MemoryProposalState,
  event: MemoryProposalEvent,
): MemoryProposalState {
  if (event.type === 'MemoryProposed')
    return {
      status: 'pending',
      proposalId: event.data.proposalId,
      agentId: event.data.agentId,
      userId: event.data.userId,
      memoryId: null,
    };
  if (state.status === 'absent') return state;
  switch (event.type) {
    case 'MemoryProposalConfirmed':
      return { ...state, status: 'confirmed', memoryId: event.data.memoryId };
    case 'MemoryProposalKeptPersonal':
      return { ...state, status: 'kept_personal', memoryId: event.data.memoryId };
    case 'MemoryProposalDiscarded':
      return { ...state, status: 'discarded' };
    case 'MemoryProposalFlagged':
      return { ...state, status: 'flagged' };
  }
}
