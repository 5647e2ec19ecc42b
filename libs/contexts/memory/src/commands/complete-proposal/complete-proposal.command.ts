// Completes an answered proposal (sent by MemoryProposalProcess): the memory it names (unless discarded or refused),
// from the proposal's sealed text in the log, then the proposal's key destroyed. Adding a memory id twice is a no-op,
// so a replay changes nothing. The cause is a fact of the log: nothing to authorize.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#event-store';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { AskedAtRoute, type PlatformPrincipal } from '#access';
import { KEY_STORE, type KeyStore } from '#key-store';
import { SharedMemoryFullError } from '../../memory.decider.js';
import { SHARED_OWNER } from '../../memory.events.js';
import { memoryProposalStreamId, type MemoryProposalEvent } from '../../memory-proposal.events.js';
import { MemoryReader } from '../../memory.reader.js';
import { MemoryRepository } from '../../memory.repository.js';

type Proposed = Extract<MemoryProposalEvent, { type: 'MemoryProposed' }>['data'];

@AskedAtRoute('no route sends it: only MemoryProposalProcess, whose principal is the platform (typed so)')
export class CompleteProposal extends Command<WriteResult> {
  constructor(
    readonly proposalId: string,
    readonly outcome: { readonly memoryId: string; readonly bucket: 'shared' | 'personal' } | null,
    readonly context: CommandContext,
    readonly principal: PlatformPrincipal,
  ) {
    super();
  }
}

@CommandHandler(CompleteProposal)
export class CompleteProposalHandler implements ICommandHandler<CompleteProposal> {
  constructor(
    private readonly memories: MemoryRepository,
    private readonly reader: MemoryReader,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ proposalId, outcome, context }: CompleteProposal): Promise<WriteResult> {
    let position = 0;
    if (outcome) {
      const proposed = (await this.events.readStream(memoryProposalStreamId(proposalId))).find(
        (event) => event.type === 'MemoryProposed',
      )?.data as Proposed | undefined;
      const text = proposed ? await this.reader.text(proposed.text) : null;
      if (proposed && text !== null)
        position = await this.addUnlessFull(
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
    return { id: proposalId, position };
  }

  /**
   * The answering request checked for room before confirming; should the shared bucket have filled in between (a
   * narrow race), the memory is not added rather than retiring another contributor's (or wedging this process).
   */
  private async addUnlessFull(...args: Parameters<MemoryRepository['add']>): Promise<number> {
    try {
      return (await this.memories.add(...args)).position;
    } catch (error) {
      if (!(error instanceof SharedMemoryFullError)) throw error;
      return 0;
    }
  }
}
