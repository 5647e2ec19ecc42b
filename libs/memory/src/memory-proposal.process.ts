// Process manager: an answered proposal ends in the log, not in a request. A confirmation (shared) or a "for me only"
// (personal) adds the memory under the id the answer named, from the proposal's sealed text; then, as for a discarded
// or refused proposal, the proposal's key is destroyed (its text is no longer needed anywhere). The answering request
// does the same at once; this catches up a process that died between the answer and the memory. Adding a memory id
// twice is a no-op, so a replay changes nothing.
import { Inject, Injectable } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventEnvelope } from '#kernel';
import { causedBy, defineProcess, type CommandContext, type EventHandlers } from '#eventsourcing';
import { EVENT_STORE, type EventStore } from '#event-store';
import { KEY_STORE, type KeyStore } from '#key-store';
import { SharedMemoryFullError } from './memory.decider.js';
import { SHARED_OWNER } from './memory.events.js';
import { memoryProposalStreamId, type MemoryProposalEvent } from './memory-proposal.events.js';
import { MemoryStore } from './memory-store.js';

type Proposed = Extract<MemoryProposalEvent, { type: 'MemoryProposed' }>['data'];

/** Completes an answered proposal: the memory it names (unless discarded or refused), then its key destroyed. */
export class CompleteProposal extends Command<void> {
  constructor(
    readonly proposalId: string,
    readonly outcome: { readonly memoryId: string; readonly bucket: 'shared' | 'personal' } | null,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(CompleteProposal)
export class CompleteProposalHandler implements ICommandHandler<CompleteProposal> {
  constructor(
    private readonly store: MemoryStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ proposalId, outcome, context }: CompleteProposal): Promise<void> {
    if (outcome) {
      const proposed = (await this.events.readStream(memoryProposalStreamId(proposalId))).find(
        (event) => event.type === 'MemoryProposed',
      )?.data as Proposed | undefined;
      const text = proposed ? await this.store.cipher.open(proposed.text) : null;
      if (proposed && text !== null)
        await this.addUnlessFull(
          {
            agentId: proposed.agentId,
            owner: outcome.bucket === 'shared' ? SHARED_OWNER : proposed.userId,
            text,
            source: {
              kind: 'proposal',
              conversationId: proposed.conversationId,
              messageId: proposed.messageId,
            },
            addedBy: proposed.userId,
            memoryId: outcome.memoryId,
          },
          context,
        );
    }
    await this.keys.destroy(proposalId);
  }

  /**
   * The answering request checked for room before confirming; should the shared bucket have filled in between (a
   * narrow race), the memory is not added rather than retiring another contributor's (or wedging this process).
   */
  private async addUnlessFull(...args: Parameters<MemoryStore['add']>): Promise<void> {
    try {
      await this.store.add(...args);
    } catch (error) {
      if (!(error instanceof SharedMemoryFullError)) throw error;
    }
  }
}

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
  name: 'memory-proposal-process',
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
    await this.bus.execute(new CompleteProposal(proposalId, outcome, causedBy(event, proposalId)));
    return [];
  }
}

type EnvelopeWithProposal = EventEnvelope<string, { readonly proposalId: string }>;
