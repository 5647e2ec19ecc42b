// The memory bucket aggregate: its events, state and evolve. An Agent keeps memories in buckets, one stream each: a
// personal bucket per user (owner = the userId) and the Agent's shared bucket (owner = 'shared'). The bucket is the
// consistency boundary of the cap: every write path (extraction, the API, a confirmed proposal) adds through it, so
// the least recently used memory is retired, explicitly, in the same decision that adds one to a full bucket. In the
// shared bucket every memory has a contributor (MemoryAdded's addedBy: the user who confirmed the proposal, or the
// manager or admin who wrote it directly, source `api`), and a write only ever retires its own contributor's memories.
// Memory texts are sealed with the memory's data key (ContentCipher) before they reach an event: destroying the key
// erases every version of the text from the log, the read models and the backups at once.
import type { DomainEvent } from '#kernel';

/** Text sealed with a data key (`sealed:v1:<keyId>:…`, see ContentCipher); unreadable once the key is destroyed. */
export type Sealed = string;

/** The owner of an Agent's shared bucket; any other owner is the userId of a personal bucket. */
export const SHARED_OWNER = 'shared';

export type MemoryBucketKind = 'personal' | 'shared';

/**
 * A direct write to the bucket (source `api`): in the shared bucket only the Agent's manager or an admin may make
 * one (the handlers' check), so it is the managed part of the bucket, outside any contributor's share. A confirmed
 * proposal (source `proposal`) is a user's contribution, within their share.
 */
export const isDirectWrite = (source: MemorySource): boolean => source.kind === 'api';

export const bucketKindOf = (owner: string): MemoryBucketKind =>
  owner === SHARED_OWNER ? 'shared' : 'personal';

export const memoryBucketStreamId = (agentId: string, owner: string): string =>
  `memory-bucket-${agentId}-${owner}`;

/** Where a memory's text came from: a turn's extraction, the API, or a confirmed shared-memory proposal. */
export interface MemorySource {
  readonly kind: 'extraction' | 'api' | 'proposal';
  readonly conversationId: string | null;
  readonly messageId: string | null;
}

type Bucket = { readonly agentId: string; readonly owner: string };
type Memory = Bucket & { readonly memoryId: string };

export type MemoryEvent =
  | DomainEvent<
      'MemoryAdded',
      Memory & {
        readonly bucket: MemoryBucketKind;
        readonly text: Sealed;
        readonly source: MemorySource;
        /** The user who added it (for a confirmed proposal: the user who confirmed). */
        readonly addedBy: string;
      }
    >
  | DomainEvent<
      'MemoryRevised',
      Memory & {
        /** The version this revision creates (the previous one + 1). */
        readonly version: number;
        readonly text: Sealed;
        readonly source: MemorySource;
        /** The user who edited it, or null when the extractor superseded a fact a later turn contradicted. */
        readonly revisedBy: string | null;
        readonly reason: 'edited' | 'superseded';
      }
    >
  | DomainEvent<
      'MemoryRolledBack',
      Memory & {
        /** The version the rollback creates: history is never rewritten, the old text comes back as a new version. */
        readonly version: number;
        readonly toVersion: number;
        /** The text of `toVersion`, opened and sealed again by the caller. */
        readonly text: Sealed;
        readonly rolledBackBy: string;
      }
    >
  /** A turn used these memories: their recency (what the cap retires by), and the answers that used a memory. */
  | DomainEvent<
      'MemoriesRecalled',
      Bucket & {
        readonly memoryIds: readonly string[];
        readonly conversationId: string;
        readonly messageId: string;
        /** The user whose turn it was (absent from recalls recorded before it was kept). */
        readonly userId?: string;
      }
    >
  /** The least recently used memory left a full bucket to make room for a new one. */
  | DomainEvent<'MemoryRetired', Memory & { readonly reason: 'cap_reached' }>
  | DomainEvent<'MemoryDeleted', Memory & { readonly reason: 'requested' | 'agent_deleted' }>
  /** Every live memory of the bucket deleted at once (one fact for the clear, not one per memory). */
  | DomainEvent<
      'MemoryBucketCleared',
      Bucket & {
        readonly memoryIds: readonly string[];
        /** The user who cleared it, or null when the platform did (the Agent was deleted). */
        readonly clearedBy: string | null;
        readonly reason: 'requested' | 'agent_deleted';
      }
    >
  /** Screening refused a candidate memory: the reasons are kept, never the text. */
  | DomainEvent<
      'MemoryScreeningFlagged',
      Bucket & {
        readonly candidateId: string;
        readonly reasons: readonly string[];
        readonly source: MemorySource;
        readonly flaggedBy: string | null;
      }
    >;

export type MemoryEventType = MemoryEvent['type'];

export interface MemoryVersionText {
  readonly version: number;
  readonly text: Sealed;
}

export interface LiveMemory {
  readonly memoryId: string;
  /** The current version (1 when added). */
  readonly version: number;
  /** Every version's text, oldest first; the last is the current text. */
  readonly versions: readonly MemoryVersionText[];
  /** The bucket's clock when it was added: the tie-break of the cap (the oldest added goes first). */
  readonly addedSeq: number;
  /** The bucket's clock at its last use (added, revised, rolled back or recalled): what the cap retires by. */
  readonly lastUsedSeq: number;
  /** Who added it (MemoryAdded's addedBy): in the shared bucket, whose share it counts in and who may retire it. */
  readonly contributor: string;
  /** Added directly (by the Agent's manager or an admin in the shared bucket): outside every contributor's share. */
  readonly direct: boolean;
}

export interface MemoryBucketState {
  /**
   * Events folded so far: the bucket's own clock. Recency is the order of the bucket's stream rather than wall-clock
   * time, so the cap's choice needs no time in event data and no two instances' clocks can disagree about it.
   */
  readonly clock: number;
  /** Live memories, oldest added first. */
  readonly memories: readonly LiveMemory[];
  /** Ids that were added and are no longer live (retired, deleted, cleared): adding one again is a retry, not news. */
  readonly goneIds: readonly string[];
  /** Candidates screening refused, so a retried report records the refusal once. */
  readonly flaggedCandidateIds: readonly string[];
}

export const initialMemoryBucketState = (): MemoryBucketState => ({
  clock: 0,
  memories: [],
  goneIds: [],
  flaggedCandidateIds: [],
});

export const findLiveMemory = (state: MemoryBucketState, memoryId: string): LiveMemory | undefined =>
  state.memories.find((memory) => memory.memoryId === memoryId);

function withMemory(
  memories: readonly LiveMemory[],
  memoryId: string,
  change: (memory: LiveMemory) => LiveMemory,
): readonly LiveMemory[] {
  return memories.map((memory) => (memory.memoryId === memoryId ? change(memory) : memory));
}

function withoutMemories(state: MemoryBucketState, memoryIds: readonly string[]): MemoryBucketState {
  const leaving = state.memories.filter((memory) => memoryIds.includes(memory.memoryId));
  return {
    ...state,
    memories: state.memories.filter((memory) => !memoryIds.includes(memory.memoryId)),
    goneIds: [...state.goneIds, ...leaving.map((memory) => memory.memoryId)],
  };
}

function newVersion(
  state: MemoryBucketState,
  memoryId: string,
  version: number,
  text: Sealed,
  now: number,
): MemoryBucketState {
  return {
    ...state,
    memories: withMemory(state.memories, memoryId, (memory) => ({
      ...memory,
      version,
      versions: [...memory.versions, { version, text }],
      lastUsedSeq: now,
    })),
  };
}

export function evolveMemoryBucket(previous: MemoryBucketState, event: MemoryEvent): MemoryBucketState {
  const now = previous.clock + 1;
  const state = { ...previous, clock: now };
  switch (event.type) {
    case 'MemoryAdded':
      if (findLiveMemory(state, event.data.memoryId)) return state;
      return {
        ...state,
        memories: [
          ...state.memories,
          {
            memoryId: event.data.memoryId,
            version: 1,
            versions: [{ version: 1, text: event.data.text }],
            addedSeq: now,
            lastUsedSeq: now,
            contributor: event.data.addedBy,
            direct: isDirectWrite(event.data.source),
          },
        ],
      };
    case 'MemoryRevised':
    case 'MemoryRolledBack':
      return newVersion(state, event.data.memoryId, event.data.version, event.data.text, now);
    case 'MemoriesRecalled':
      return {
        ...state,
        memories: state.memories.map((memory) =>
          event.data.memoryIds.includes(memory.memoryId) ? { ...memory, lastUsedSeq: now } : memory,
        ),
      };
    case 'MemoryRetired':
    case 'MemoryDeleted':
      return withoutMemories(state, [event.data.memoryId]);
    case 'MemoryBucketCleared':
      return withoutMemories(state, event.data.memoryIds);
    case 'MemoryScreeningFlagged':
      return { ...state, flaggedCandidateIds: [...state.flaggedCandidateIds, event.data.candidateId] };
  }
}
