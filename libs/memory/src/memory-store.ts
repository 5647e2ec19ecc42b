// The memory buckets and proposals as the runtime and the routes use them: decisions go through the deciders into
// the log, reads come from the read models, and every text is sealed on the way in and opened on the way out with the
// memory's own data key (a proposal's with its own), filed under the bucket, so deleting a memory destroys its key and
// clearing a bucket destroys them all: the text is gone from the log, every read model and every backup.
import { Inject, Injectable } from '@nestjs/common';
import type { CommandContext } from '#eventsourcing';
import { ContentCipher, KEY_STORE, type KeyStore } from '#key-store';
import { newId, PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { AggregateRepository, ReadYourWritesBus } from '#eventsourcing';
import { findAll, READ_STORE, type ReadStore } from '#read-store';
import { memoryBucketDecider, type MemoryBucketCommand } from './memory.decider.js';
import { memoryBucketStreamId, SHARED_OWNER, type MemoryEvent, type MemorySource } from './memory.events.js';
import { memoryProposalDecider, type MemoryProposalCommand } from './memory-proposal.decider.js';
import { memoryProposalStreamId } from './memory-proposal.events.js';
import {
  MEMORIES,
  MEMORIES_READ_MODEL,
  MEMORY_PROPOSALS,
  MEMORY_PROPOSALS_READ_MODEL,
  MEMORY_RECALLS_READ_MODEL,
  type MemoryProposalView,
  type MemoryView,
} from './memory.read-model.js';

/** A memory as the routes and the runtime read it: its text opened. */
export interface PlainMemory {
  readonly id: string;
  readonly agentId: string;
  readonly owner: string;
  readonly bucket: 'personal' | 'shared';
  readonly text: string;
  readonly version: number;
  readonly lastUsedAt: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Who added it (its first version's writer) and how: directly (the API) or by confirming a proposal. */
  readonly contributor: {
    readonly userId: string | null;
    readonly via: 'direct' | 'proposal' | 'extraction';
  };
}

export const bucketKeyGroup = (agentId: string, owner: string): string => `memory:${agentId}:${owner}`;

const contributorOf = (view: MemoryView): PlainMemory['contributor'] => {
  const first = view.versions[0];
  const kind = first?.source.kind ?? 'api';
  return { userId: first?.by ?? null, via: kind === 'api' ? 'direct' : kind };
};

const PAGE = 200;
const HOUR_MS = 3_600_000;
const SETTLES = [MEMORIES_READ_MODEL, MEMORY_PROPOSALS_READ_MODEL, MEMORY_RECALLS_READ_MODEL];

@Injectable()
export class MemoryStore {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly sender: ReadYourWritesBus,
    readonly cipher: ContentCipher,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  cap(owner: string): number {
    return owner === SHARED_OWNER ? this.config.memorySharedCap : this.config.memoryPersonalCap;
  }

  /** A contributor's share of the shared bucket (their confirmed proposals); personal buckets have none. */
  share(owner: string): number | undefined {
    return owner === SHARED_OWNER ? this.config.memorySharedPerUserCap : undefined;
  }

  /**
   * Fails as the add itself would (409 shared_memory_full) when the bucket has no room this writer may make, so a
   * confirmation is refused before the proposal is answered (it stays pending: it can still be kept personal).
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
        cap: this.cap(owner),
        ...(this.share(owner) === undefined ? {} : { share: this.share(owner) }),
      },
      state,
    );
  }

  /**
   * The rate limit of shared-memory proposals (MEMORY_PROPOSALS_PER_HOUR per user per Agent): how many the user got
   * (`proposed`) or confirmed (`confirmed`) in the last hour, and when the oldest of them leaves the window.
   */
  async proposalRate(
    agentId: string,
    userId: string,
    what: 'proposed' | 'confirmed',
    now = Date.now(),
  ): Promise<{ count: number; limit: number; retryAfterSeconds: number }> {
    const since = new Date(now - HOUR_MS).toISOString();
    const views = await findAll<MemoryProposalView>(
      this.readStore,
      MEMORY_PROPOSALS,
      what === 'confirmed'
        ? { agentId, userId, state: 'confirmed', answeredAt: { $gte: since } }
        : { agentId, userId, createdAt: { $gte: since } },
    );
    const times = views
      .map((view) => (what === 'confirmed' ? view.answeredAt : view.createdAt))
      .filter((at): at is string => at !== null && at >= since)
      .sort();
    const oldest = times[0];
    return {
      count: times.length,
      limit: this.config.memoryProposalsPerHour,
      retryAfterSeconds: oldest ? Math.max(1, Math.ceil((Date.parse(oldest) + HOUR_MS - now) / 1000)) : 1,
    };
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
        cap: this.cap(owner),
        ...(this.share(owner) === undefined ? {} : { share: this.share(owner) }),
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

  /** Brings an earlier version's text back as a new version (history is never rewritten). */
  async rollBack(view: MemoryView, toVersion: number, by: string, context: CommandContext): Promise<number> {
    const old = view.versions.find((version) => version.version === toVersion);
    const opened = old ? await this.cipher.open(old.text) : null;
    const text =
      opened === null
        ? ''
        : await this.cipher.seal(view.id, bucketKeyGroup(view.agentId, view.owner), opened);
    const { position } = await this.runBucket(
      {
        type: 'RollBackMemory',
        agentId: view.agentId,
        owner: view.owner,
        memoryId: view.id,
        toVersion,
        text,
        rolledBackBy: by,
      },
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
  ) {
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
  ) {
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
    proposal: { agentId: string; userId: string; text: string; conversationId: string; messageId: string },
    context: CommandContext,
  ): Promise<{ proposalId: string; position: number }> {
    const proposalId = newId('prop');
    const text = await this.cipher.seal(
      proposalId,
      bucketKeyGroup(proposal.agentId, proposal.userId),
      proposal.text,
    );
    const { position } = await this.runProposal(
      { type: 'ProposeMemory', proposalId, ...proposal, text },
      context,
    );
    return { proposalId, position };
  }

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

  /** Destroys the keys of what left the bucket: its text is unreadable everywhere from now on. */
  async erase(events: readonly MemoryEvent[]): Promise<void> {
    for (const event of events)
      if (event.type === 'MemoryRetired' || event.type === 'MemoryDeleted')
        await this.keys.destroy(event.data.memoryId);
      else if (event.type === 'MemoryBucketCleared')
        await this.keys.destroyGroup(bucketKeyGroup(event.data.agentId, event.data.owner));
  }

  settle(position: number): Promise<boolean> {
    return this.sender.settle(position, SETTLES);
  }

  async view(memoryId: string): Promise<MemoryView | null> {
    return this.readStore.reader<MemoryView>(MEMORIES).get(memoryId);
  }

  async proposal(proposalId: string): Promise<MemoryProposalView | null> {
    return this.readStore.reader<MemoryProposalView>(MEMORY_PROPOSALS).get(proposalId);
  }

  /** Every live memory of these buckets of an Agent, opened (a bucket holds at most its cap). */
  async memories(agentId: string, owners: readonly string[]): Promise<PlainMemory[]> {
    const views: MemoryView[] = [];
    for (const owner of owners) {
      let cursor: string | null = null;
      do {
        const page = await this.readStore
          .reader<MemoryView>(MEMORIES)
          .find({ agentId, owner }, { sort: { field: 'createdAt' }, limit: PAGE, cursor });
        views.push(...page.data);
        cursor = page.nextCursor;
      } while (cursor);
    }
    return this.open(views);
  }

  async open(views: readonly MemoryView[]): Promise<PlainMemory[]> {
    const texts = await this.cipher.openMany(views.map((view) => view.text));
    return views.flatMap((view, i) => {
      const text = texts[i];
      if (text === null || text === undefined) return [];
      return [
        {
          id: view.id,
          agentId: view.agentId,
          owner: view.owner,
          bucket: view.bucket,
          text,
          version: view.version,
          lastUsedAt: view.lastUsedAt,
          createdAt: view.createdAt,
          updatedAt: view.updatedAt,
          contributor: contributorOf(view),
        },
      ];
    });
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
