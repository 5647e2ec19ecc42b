// The Memory write repository: what the command handlers hand to the log. Each write seals its text with the
// memory's own data key (a proposal's with its own), filed under the bucket, then loads the bucket's (or the
// proposal's) stream, decides and appends; what left the bucket has its keys destroyed at once (the erasure process
// makes it certain). Deleting a memory destroys its key and clearing a bucket destroys them all: the text is gone
// from the log, every read model and every backup. It serves no reads: those are MemoryReader's.
import { Inject, Injectable } from '@nestjs/common';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
import { ContentCipher, KEY_STORE, type KeyStore } from '#key-store';
import { newId, PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { memoryBucketDecider, type MemoryBucketCommand } from './memory.decider.js';
import {
  memoryBucketStreamId,
  SHARED_OWNER,
  type MemoryEvent,
  type MemorySource,
  type Sealed,
} from './memory.events.js';
import { memoryProposalDecider, type MemoryProposalCommand } from './memory-proposal.decider.js';
import { memoryProposalStreamId } from './memory-proposal.events.js';

/** The key group of a bucket: every key of its memories and of its user's pending proposals. */
export const bucketKeyGroup = (agentId: string, owner: string): string => `memory:${agentId}:${owner}`;

@Injectable()
export class MemoryRepository {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly cipher: ContentCipher,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  /**
   * Decides (without appending) an add of this writer to the bucket: fails as the add itself would (409
   * shared_memory_full) when the bucket has no room this writer may make, so a confirmation is refused before the
   * proposal is answered (it stays pending: it can still be kept personal).
   */
  async checkRoom(agentId: string, owner: string, addedBy: string, source: MemorySource): Promise<void> {
    const { state } = await this.aggregates.load(memoryBucketStreamId(agentId, owner), memoryBucketDecider);
    memoryBucketDecider.decide(
      {
        type: 'AddMemory',
        agentId,
        owner,
        memoryId: newId('mem'),
        text: '',
        source,
        addedBy,
        ...this.limits(owner),
      },
      state,
    );
  }

  /** Adds a memory (the bucket retires its least recently used one when full, in the same decision). */
  async add(
    memory: {
      agentId: string;
      owner: string;
      text: string;
      source: MemorySource;
      addedBy: string;
      memoryId?: string;
    },
    context: CommandContext,
  ): Promise<{ memoryId: string; position: number }> {
    const memoryId = memory.memoryId ?? newId('mem');
    const { agentId, owner } = memory;
    const text = await this.cipher.seal(memoryId, bucketKeyGroup(agentId, owner), memory.text);
    const result = await this.runBucket(
      {
        type: 'AddMemory',
        agentId,
        owner,
        memoryId,
        text,
        source: memory.source,
        addedBy: memory.addedBy,
        ...this.limits(owner),
      },
      context,
    );
    await this.erase(result.events);
    return { memoryId, position: result.position };
  }

  async revise(
    memory: {
      agentId: string;
      owner: string;
      memoryId: string;
      text: string;
      source: MemorySource;
      revisedBy: string | null;
      reason: 'edited' | 'superseded';
    },
    context: CommandContext,
  ): Promise<number> {
    const text = await this.cipher.seal(
      memory.memoryId,
      bucketKeyGroup(memory.agentId, memory.owner),
      memory.text,
    );
    const { position } = await this.runBucket({ type: 'ReviseMemory', ...memory, text }, context);
    return position;
  }

  /**
   * Brings an earlier version's text (`oldText`, as sealed in that version; null when there is no such version)
   * back as a new version: history is never rewritten.
   */
  async rollBack(
    memory: {
      agentId: string;
      owner: string;
      memoryId: string;
      toVersion: number;
      oldText: Sealed | null;
      rolledBackBy: string;
    },
    context: CommandContext,
  ): Promise<number> {
    const { agentId, owner, memoryId, toVersion, rolledBackBy } = memory;
    const opened = memory.oldText === null ? null : await this.cipher.open(memory.oldText);
    const text =
      opened === null ? '' : await this.cipher.seal(memoryId, bucketKeyGroup(agentId, owner), opened);
    const { position } = await this.runBucket(
      { type: 'RollBackMemory', agentId, owner, memoryId, toVersion, text, rolledBackBy },
      context,
    );
    return position;
  }

  async recall(
    agentId: string,
    owner: string,
    memoryIds: readonly string[],
    turn: { conversationId: string; messageId: string; userId: string },
    context: CommandContext,
  ): Promise<number> {
    const { position } = await this.runBucket(
      { type: 'RecordRecall', agentId, owner, memoryIds, ...turn },
      context,
    );
    return position;
  }

  async delete(
    agentId: string,
    owner: string,
    memoryId: string,
    reason: 'requested' | 'agent_deleted',
    context: CommandContext,
  ): Promise<number> {
    const result = await this.runBucket({ type: 'DeleteMemory', agentId, owner, memoryId, reason }, context);
    await this.erase(result.events);
    return result.position;
  }

  async clear(
    agentId: string,
    owner: string,
    clearedBy: string | null,
    reason: 'requested' | 'agent_deleted',
    context: CommandContext,
  ): Promise<number> {
    const result = await this.runBucket({ type: 'ClearBucket', agentId, owner, clearedBy, reason }, context);
    await this.erase(result.events);
    // Also when the bucket held no memory: pending proposals' texts are filed under it too.
    await this.keys.destroyGroup(bucketKeyGroup(agentId, owner));
    return result.position;
  }

  async flag(
    flagged: {
      agentId: string;
      owner: string;
      reasons: readonly string[];
      source: MemorySource;
      flaggedBy: string | null;
    },
    context: CommandContext,
  ): Promise<number> {
    const { position } = await this.runBucket(
      { type: 'RecordFlagged', ...flagged, candidateId: newId('cand') },
      context,
    );
    return position;
  }

  async propose(
    proposal: {
      agentId: string;
      userId: string;
      text: string;
      conversationId: string;
      messageId: string;
      proposalId?: string;
    },
    context: CommandContext,
  ): Promise<{ proposalId: string; position: number }> {
    const { proposalId = newId('prop'), ...proposed } = proposal;
    const text = await this.cipher.seal(
      proposalId,
      bucketKeyGroup(proposed.agentId, proposed.userId),
      proposed.text,
    );
    const { position } = await this.runProposal(
      { type: 'ProposeMemory', proposalId, ...proposed, text },
      context,
    );
    return { proposalId, position };
  }

  /** Answers a proposal; its own key is destroyed by the handler once the memory (if any) has its own. */
  async answer(
    command: Extract<MemoryProposalCommand, { type: 'AnswerProposal' }>,
    context: CommandContext,
  ): Promise<number> {
    const { position } = await this.runProposal(command, context);
    return position;
  }

  async flagProposal(
    proposalId: string,
    reasons: readonly string[],
    context: CommandContext,
  ): Promise<number> {
    const { position } = await this.runProposal({ type: 'FlagProposal', proposalId, reasons }, context);
    return position;
  }

  /** The bucket's cap, and a contributor's share of the shared bucket (personal buckets have none). */
  private limits(owner: string): { cap: number; share?: number } {
    return owner === SHARED_OWNER
      ? { cap: this.config.memorySharedCap, share: this.config.memorySharedPerUserCap }
      : { cap: this.config.memoryPersonalCap };
  }

  /** Destroys the keys of what left the bucket: its text is unreadable everywhere from now on. */
  private async erase(events: readonly MemoryEvent[]): Promise<void> {
    for (const event of events)
      if (event.type === 'MemoryRetired' || event.type === 'MemoryDeleted')
        await this.keys.destroy(event.data.memoryId);
      else if (event.type === 'MemoryBucketCleared')
        await this.keys.destroyGroup(bucketKeyGroup(event.data.agentId, event.data.owner));
  }

  private runBucket(command: MemoryBucketCommand, context: CommandContext) {
    return this.aggregates.decide(
      memoryBucketStreamId(command.agentId, command.owner),
      memoryBucketDecider,
      command,
      context,
    );
  }

  private runProposal(command: MemoryProposalCommand, context: CommandContext) {
    return this.aggregates.decide(
      memoryProposalStreamId(command.proposalId),
      memoryProposalDecider,
      command,
      context,
    );
  }
}
