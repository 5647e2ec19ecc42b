// The shared-memory proposal decider: a proposal is made once, answered once by the user it was proposed to, or
// refused by screening before they answer. For anyone else (another user, another Agent) it does not exist: 404, the
// same answer as an unknown id, so ids cannot be probed. Creating the memory an answer names is the bucket's
// decision (AddMemory with the answer's memoryId), taken after this one.
import { ConflictError, PlatformError, ValidationError } from '#kernel';
import type { Decider } from '#eventsourcing';
import type { Sealed } from './memory.events.js';
import {
  evolveMemoryProposal,
  initialMemoryProposalState,
  type MemoryProposalEvent,
  type MemoryProposalState,
} from './memory-proposal.events.js';

export class ProposalNotFoundError extends PlatformError {
  constructor(proposalId: string) {
    super(
      'not_found',
      'proposal_not_found',
      `Memory proposal '${proposalId}' was not found for this user and Agent`,
      'proposalId',
    );
  }
}

export class ProposalAlreadyAnsweredError extends ConflictError {
  constructor(proposalId: string, status: string) {
    super('proposal_already_answered', `Memory proposal '${proposalId}' is already ${status}`, 'proposalId');
  }
}

/** Beyond MEMORY_PROPOSALS_PER_HOUR confirmations by one user on one Agent within an hour (429, Retry-After). */
export class ProposalRateLimitedError extends PlatformError {
  constructor(limit: number, retryAfterSeconds: number) {
    super(
      'rate_limited',
      'memory_proposal_rate_limited',
      `You have confirmed ${limit} shared-memory proposals on this Agent in the last hour, the most allowed ` +
        `(MEMORY_PROPOSALS_PER_HOUR): try again in ${retryAfterSeconds} seconds, or keep it for yourself ` +
        "(answer 'personal').",
      'answer',
    );
    this.headers = { 'retry-after': String(retryAfterSeconds) };
  }
}

/** What a turn's `message.memory.proposalsLimited` says when the user's proposals hit the hourly limit. */
export const proposalsLimitedMessage = (limit: number, retryAfterSeconds: number): string => {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return (
    `Not proposed for shared memory: at most ${limit} proposals per hour on this Agent ` +
    `(MEMORY_PROPOSALS_PER_HOUR); the next one is possible in ${minutes} minute${minutes === 1 ? '' : 's'}.`
  );
};

export type ProposalAnswer = 'confirm' | 'personal' | 'discard';

type Id = { readonly proposalId: string };

export type MemoryProposalCommand =
  | (Id & {
      readonly type: 'ProposeMemory';
      readonly agentId: string;
      readonly userId: string;
      readonly text: Sealed;
      readonly conversationId: string;
      readonly messageId: string;
    })
  | (Id & {
      readonly type: 'AnswerProposal';
      /** The Agent and the user who answer: the proposal's own, or it is "not found". */
      readonly agentId: string;
      readonly userId: string;
      readonly answer: ProposalAnswer;
      /** The memory a confirm (shared) or personal answer creates; unused by discard. */
      readonly memoryId: string;
    })
  | (Id & { readonly type: 'FlagProposal'; readonly reasons: readonly string[] });

function answered(proposalId: string, answer: ProposalAnswer, memoryId: string): MemoryProposalEvent {
  switch (answer) {
    case 'confirm':
      return { type: 'MemoryProposalConfirmed', data: { proposalId, memoryId } };
    case 'personal':
      return { type: 'MemoryProposalKeptPersonal', data: { proposalId, memoryId } };
    case 'discard':
      return { type: 'MemoryProposalDiscarded', data: { proposalId } };
  }
}

function decide(command: MemoryProposalCommand, state: MemoryProposalState): MemoryProposalEvent[] {
  const { proposalId } = command;
  switch (command.type) {
    case 'ProposeMemory': {
      // A retried proposal finds itself made: nothing to propose again.
      if (state.status !== 'absent') return [];
      const { agentId, userId, text, conversationId, messageId } = command;
      return [
        { type: 'MemoryProposed', data: { proposalId, agentId, userId, text, conversationId, messageId } },
      ];
    }
    case 'AnswerProposal': {
      if (state.status === 'absent' || state.userId !== command.userId || state.agentId !== command.agentId)
        throw new ProposalNotFoundError(proposalId);
      if (state.status !== 'pending') throw new ProposalAlreadyAnsweredError(proposalId, state.status);
      return [answered(proposalId, command.answer, command.memoryId)];
    }
    case 'FlagProposal': {
      if (command.reasons.length === 0)
        throw new ValidationError(
          'invalid_screening_reasons',
          'a refusal needs at least one reason',
          'reasons',
        );
      if (state.status === 'absent') throw new ProposalNotFoundError(proposalId);
      // A retried refusal finds it recorded.
      if (state.status === 'flagged') return [];
      if (state.status !== 'pending') throw new ProposalAlreadyAnsweredError(proposalId, state.status);
      return [{ type: 'MemoryProposalFlagged', data: { proposalId, reasons: command.reasons } }];
    }
  }
}

export const memoryProposalDecider: Decider<MemoryProposalState, MemoryProposalCommand, MemoryProposalEvent> =
  {
    initialState: initialMemoryProposalState,
    evolve: evolveMemoryProposal,
    decide,
  };
