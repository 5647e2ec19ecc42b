// The Memory read side: the memories and proposals as the read models hold them, their texts opened with their
// keys (a text whose key was destroyed reads as gone). Query handlers, the context provider, the handlers' loaders
// and the process managers read through it; it writes nothing (writes go through commands to MemoryRepository).
import { Inject, Injectable } from '@nestjs/common';
import { ContentCipher } from '#key-store';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { findAll, READ_STORE, type ReadStore } from '#read-store';
import { PROVENANCE_USES, type ProvenanceUseView } from '#audit';
import type { Sealed } from './memory.events.js';
import { MEMORIES, MEMORY_PROPOSALS, type MemoryProposalView, type MemoryView } from './memory.read-model.js';

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
  /** The conversation message it was first saved from (a turn's extraction, a confirmed proposal), else null. */
  readonly origin: { readonly conversationId: string; readonly messageId: string } | null;
}

/** An answer that used a memory: whose conversation it is, and when it was recorded. */
export interface MemoryAnswer {
  readonly conversationId: string;
  readonly messageId: string;
  readonly userId: string;
  readonly at: string;
}

/** The rate of a user's shared-memory proposals on an Agent in the last hour (MEMORY_PROPOSALS_PER_HOUR). */
export interface ProposalRate {
  readonly count: number;
  readonly limit: number;
  readonly retryAfterSeconds: number;
}

const contributorOf = (view: MemoryView): PlainMemory['contributor'] => {
  const first = view.versions[0];
  const kind = first?.source.kind ?? 'api';
  return { userId: first?.by ?? null, via: kind === 'api' ? 'direct' : kind };
};

const originOf = (view: MemoryView): PlainMemory['origin'] => {
  const source = view.versions[0]?.source;
  return source?.conversationId && source.messageId
    ? { conversationId: source.conversationId, messageId: source.messageId }
    : null;
};

const PAGE = 200;
const HOUR_MS = 3_600_000;

@Injectable()
export class MemoryReader {
  constructor(
    private readonly cipher: ContentCipher,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  memory(memoryId: string): Promise<MemoryView | null> {
    return this.readStore.reader<MemoryView>(MEMORIES).get(memoryId);
  }

  proposal(proposalId: string): Promise<MemoryProposalView | null> {
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
          origin: originOf(view),
        },
      ];
    });
  }

  /** A user's proposals on an Agent (only the pending ones, if asked), oldest first; their texts still sealed. */
  async proposals(agentId: string, userId: string, pendingOnly: boolean): Promise<MemoryProposalView[]> {
    return (
      await findAll<MemoryProposalView>(this.readStore, MEMORY_PROPOSALS, {
        agentId,
        userId,
        ...(pendingOnly ? { state: 'pending' } : {}),
      })
    ).toSorted((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /**
   * The answers that used a memory (any of its versions), oldest first: from the provenance read model, the one
   * record of which answers used which source (GET /provenance reads it too), fed by each recorded answer.
   */
  async answersUsing(memoryId: string): Promise<MemoryAnswer[]> {
    const uses = await findAll<ProvenanceUseView>(this.readStore, PROVENANCE_USES, {
      source: `memory:${memoryId}`,
    });
    return uses
      .map(({ conversationId, messageId, userId, at }) => ({ conversationId, messageId, userId, at }))
      .toSorted((a, b) => a.at.localeCompare(b.at) || a.messageId.localeCompare(b.messageId));
  }

  /** The Agents where a user has a personal bucket: a memory, or a pending proposal (its key is in the bucket's group). */
  async agentsWithBucketsOf(userId: string): Promise<string[]> {
    const mine = await findAll<MemoryView>(this.readStore, MEMORIES, { owner: userId });
    const proposed = await findAll<MemoryProposalView>(this.readStore, MEMORY_PROPOSALS, {
      userId,
      state: 'pending',
    });
    return [...new Set([...mine, ...proposed].map((item) => item.agentId))];
  }

  /** A sealed text opened; null once its key is destroyed. */
  text(sealed: Sealed): Promise<string | null> {
    return this.cipher.open(sealed);
  }

  texts(sealed: readonly Sealed[]): Promise<(string | null)[]> {
    return this.cipher.openMany(sealed);
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
  ): Promise<ProposalRate> {
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
}
