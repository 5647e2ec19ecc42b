// What others hear of shared-memory proposals (integration events, see #integration-events): one was made, and how it
// was answered. Never its text (sealed, erasable): consumers read it through the API, as its user.
import { defineIntegrationEvents } from '#integration-events';
import type { MemoryProposalEvent } from './memory-proposal.events.js';

export const MEMORY_PROPOSAL_INTEGRATION_EVENTS = defineIntegrationEvents<MemoryProposalEvent>('memory', {
  MemoryProposed: ({ data }) => ({
    fact: 'proposal-created',
    subject: { proposalId: data.proposalId, agentId: data.agentId, userId: data.userId },
    data: { conversationId: data.conversationId, messageId: data.messageId },
  }),
  MemoryProposalConfirmed: ({ data }) => ({
    fact: 'proposal-confirmed',
    subject: { proposalId: data.proposalId, memoryId: data.memoryId },
  }),
  MemoryProposalKeptPersonal: ({ data }) => ({
    fact: 'proposal-kept-personal',
    subject: { proposalId: data.proposalId, memoryId: data.memoryId },
  }),
  MemoryProposalDiscarded: ({ data }) => ({
    fact: 'proposal-discarded',
    subject: { proposalId: data.proposalId },
  }),
  MemoryProposalFlagged: ({ data }) => ({
    fact: 'proposal-flagged',
    subject: { proposalId: data.proposalId },
    data: { reasons: data.reasons },
  }),
});
