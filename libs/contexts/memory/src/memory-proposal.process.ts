// Process manager: an answered proposal ends in the log, not in a request. A confirmation (shared) or a "for me only"
// (personal) adds the memory under the id the answer named, from the proposal's sealed text; then, as for a discarded
// or refused proposal, the proposal's key is destroyed (its text is no longer needed anywhere). The answering request
// does the same at once; this catches up a process that died between the answer and the memory. Adding a memory id
// twice is a no-op, so a replay changes nothing.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { EventEnvelope } from '#kernel';
import { causedBy, defineProcess, type EventHandlers } from '#eventsourcing';
import type { PlatformPrincipal } from '#access';
import { CompleteProposal } from './commands/complete-proposal/complete-proposal.command.js';
import type { MemoryProposalEvent } from './memory-proposal.events.js';

const NAME = 'memory-proposal-process';
const PLATFORM: PlatformPrincipal = { kind: 'platform', process: NAME };

type Read = Extract<
  MemoryProposalEvent,
  {
    type:
      | 'MemoryProposalConfirmed'
      | 'MemoryProposalKeptPersonal'
      | 'MemoryProposalDiscarded'
      | 'MemoryProposalFlagged';
  }
>;

@Injectable()
export class MemoryProposalProcess extends defineProcess<Read>({
  name: NAME,
  version: 1,
}) {
  constructor(private readonly bus: CommandBus) {
    super();
  }

  readonly on: EventHandlers<Read> = {
    MemoryProposalConfirmed: (event) =>
      this.complete(event, { memoryId: event.data.memoryId, bucket: 'shared' }),
    MemoryProposalKeptPersonal: (event) =>
      this.complete(event, { memoryId: event.data.memoryId, bucket: 'personal' }),
    MemoryProposalDiscarded: (event) => this.complete(event, null),
    MemoryProposalFlagged: (event) => this.complete(event, null),
  };

  private async complete(event: EnvelopeWithProposal, outcome: CompleteProposal['outcome']) {
    const { proposalId } = event.data;
    await this.bus.execute(new CompleteProposal(proposalId, outcome, causedBy(event, proposalId), PLATFORM));
    return [];
  }
}

type EnvelopeWithProposal = EventEnvelope<string, { readonly proposalId: string }>;
