import {
  ProposalAlreadyAnsweredError,
  memoryProposalDecider,
  type MemoryProposalCommand,
  type ProposalAnswer,
} from './memory-proposal.decider.js';
import { memoryProposalStreamId, type MemoryProposalEvent } from './memory-proposal.events.js';
import { deciderSpec } from '#testing/decider-spec';

const given = deciderSpec(memoryProposalDecider);

const proposed: MemoryProposalEvent = {
  type: 'MemoryProposed',
  data: {
    proposalId: 'p1',
    agentId: 'a1',
    userId: 'u1',
    text: 'sealed-fact',
    conversationId: 'c1',
    messageId: 'm1',
  },
};
const propose: MemoryProposalCommand = {
  type: 'ProposeMemory',
  proposalId: 'p1',
  agentId: 'a1',
  userId: 'u1',
  text: 'sealed-fact',
  conversationId: 'c1',
  messageId: 'm1',
};
const answer = (
  answer: ProposalAnswer,
  { userId = 'u1', agentId = 'a1', memoryId = 'x1' } = {},
): MemoryProposalCommand => ({ type: 'AnswerProposal', proposalId: 'p1', agentId, userId, answer, memoryId });
const confirmed: MemoryProposalEvent = {
  type: 'MemoryProposalConfirmed',
  data: { proposalId: 'p1', memoryId: 'x1' },
};
const keptPersonal: MemoryProposalEvent = {
  type: 'MemoryProposalKeptPersonal',
  data: { proposalId: 'p1', memoryId: 'x1' },
};
const discarded: MemoryProposalEvent = { type: 'MemoryProposalDiscarded', data: { proposalId: 'p1' } };
const flagged: MemoryProposalEvent = {
  type: 'MemoryProposalFlagged',
  data: { proposalId: 'p1', reasons: ['personal_data'] },
};
const flag = (reasons = ['personal_data']): MemoryProposalCommand => ({
  type: 'FlagProposal',
  proposalId: 'p1',
  reasons,
});

describe('Memory proposal decider', () => {
  it('names one stream per proposal', () => expect(memoryProposalStreamId('p1')).toBe('memory-proposal-p1'));

  describe('ProposeMemory', () => {
    it('proposes', () => given().when(propose).then([proposed]));

    it('proposes nothing when retried', () => {
      given(proposed).when(propose).then([]);
      given(proposed, confirmed).when(propose).then([]);
    });
  });

  describe('AnswerProposal', () => {
    it('confirms (a shared memory), keeps personal or discards a pending proposal', () => {
      given(proposed).when(answer('confirm')).then([confirmed]);
      given(proposed).when(answer('personal')).then([keptPersonal]);
      given(proposed).when(answer('discard')).then([discarded]);
    });

    it('answers once: a second answer, the same or another, is proposal_already_answered', () => {
      for (const first of [confirmed, keptPersonal, discarded])
        for (const second of ['confirm', 'personal', 'discard'] as const)
          given(proposed, first).when(answer(second)).thenThrows('proposal_already_answered');
    });

    it('is not answerable once screening refused it', () =>
      given(proposed, flagged).when(answer('confirm')).thenThrows('proposal_already_answered'));

    it('fails with a conflict (409 over HTTP) on proposalId', () => {
      const state = [proposed, confirmed].reduce(
        memoryProposalDecider.evolve,
        memoryProposalDecider.initialState(),
      );
      let error: unknown;
      try {
        memoryProposalDecider.decide(answer('discard'), state);
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(ProposalAlreadyAnsweredError);
      expect(error).toMatchObject({
        kind: 'conflict',
        code: 'proposal_already_answered',
        param: 'proposalId',
      });
    });

    it('is proposal_not_found (404) for another user, another Agent or an unknown proposal', () => {
      given(proposed)
        .when(answer('confirm', { userId: 'u2' }))
        .thenThrows('proposal_not_found');
      given(proposed, confirmed)
        .when(answer('confirm', { userId: 'u2' }))
        .thenThrows('proposal_not_found');
      given(proposed)
        .when(answer('confirm', { agentId: 'a2' }))
        .thenThrows('proposal_not_found');
      given().when(answer('confirm')).thenThrows('proposal_not_found');
      expect(() => memoryProposalDecider.decide(answer('discard'), { status: 'absent' })).toThrow(
        expect.objectContaining({ kind: 'not_found', param: 'proposalId' }),
      );
    });
  });

  describe('FlagProposal', () => {
    it('records the refusal of a pending proposal, once', () => {
      given(proposed).when(flag()).then([flagged]);
      given(proposed, flagged).when(flag()).then([]);
    });

    it('refuses to flag an answered or unknown proposal, or without a reason', () => {
      given(proposed, confirmed).when(flag()).thenThrows('proposal_already_answered');
      given().when(flag()).thenThrows('proposal_not_found');
      given(proposed).when(flag([])).thenThrows('invalid_screening_reasons');
    });
  });
});
