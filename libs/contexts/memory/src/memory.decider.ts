// The memory bucket decider: adding (with the cap), revising, rolling back, recalls, deletions, clearing and
// screening refusals, all decided on one bucket's stream. The cap is enforced here and only here, so no write path
// can overfill a bucket: adding to a full bucket first retires its least recently used memories, each by an explicit
// MemoryRetired. In the shared bucket a write never retires another contributor's memory: a user's confirmed
// proposals count in their share (`share`), and beyond it retire their own least recently used contribution; at the
// bucket's cap a write retires the writer's own least recently used memory, and when none is theirs it is refused
// (409 shared_memory_full). The manager's and admins' direct writes (source `api`) are outside every share, so no
// user's contributions can push them out. Who may act on a bucket (its owner; the Agent's manager for direct shared
// writes) is the handlers' check. Ids, the cap, the share and the re-sealed texts come in with the commands.
// Over 300 lines on purpose: the bucket's cap and shares are decided on one stream, and every command of the
// bucket reads them.
import { ConflictError, PlatformError, ValidationError } from '#kernel';
import { decideByType, type Decider } from '#eventsourcing';
import {
  bucketKindOf,
  evolveMemoryBucket,
  findLiveMemory,
  initialMemoryBucketState,
  isDirectWrite,
  type LiveMemory,
  type MemoryBucketState,
  type MemoryEvent,
  type MemorySource,
  type Sealed,
} from './memory.events.js';

export class MemoryNotFoundError extends PlatformError {
  constructor(memoryId: string) {
    super('not_found', 'memory_not_found', `Memory '${memoryId}' was not found`, 'memoryId');
  }
}

export class SharedMemoryFullError extends ConflictError {
  constructor(cap: number) {
    super(
      'shared_memory_full',
      `The Agent's shared memory is full (${cap} memories) and none of them is yours to make room with: nothing ` +
        "was shared. Keep it for yourself instead (answer 'personal'), or ask the Agent's manager to remove " +
        'shared memories.',
    );
  }
}

type Bucket = { readonly agentId: string; readonly owner: string };

export type MemoryBucketCommand =
  | (Bucket & {
      readonly type: 'AddMemory';
      readonly memoryId: string;
      readonly text: Sealed;
      readonly source: MemorySource;
      readonly addedBy: string;
      /** The most live memories the bucket may hold (the Agent's setting), at least 1. */
      readonly cap: number;
      /**
       * Shared bucket: the most live contributions (confirmed proposals) one user may hold in it, at least 1
       * (MEMORY_SHARED_PER_USER_CAP). Unused for personal buckets and for direct writes. Absent: no share.
       */
      readonly share?: number;
    })
  | (Bucket & {
      readonly type: 'ReviseMemory';
      readonly memoryId: string;
      readonly text: Sealed;
      readonly source: MemorySource;
      readonly revisedBy: string | null;
      readonly reason: 'edited' | 'superseded';
    })
  | (Bucket & {
      readonly type: 'RollBackMemory';
      readonly memoryId: string;
      readonly toVersion: number;
      /** The text of `toVersion`, opened and sealed again by the caller. */
      readonly text: Sealed;
      readonly rolledBackBy: string;
    })
  | (Bucket & {
      readonly type: 'RecordRecall';
      readonly memoryIds: readonly string[];
      readonly conversationId: string;
      readonly messageId: string;
      /** The user whose turn used them. */
      readonly userId?: string;
    })
  | (Bucket & {
      readonly type: 'DeleteMemory';
      readonly memoryId: string;
      /** agent_deleted: the platform's cascade, which finds a memory already gone a no-op instead of a 404. */
      readonly reason: 'requested' | 'agent_deleted';
    })
  | (Bucket & {
      readonly type: 'ClearBucket';
      readonly clearedBy: string | null;
      readonly reason: 'requested' | 'agent_deleted';
    })
  | (Bucket & {
      readonly type: 'RecordFlagged';
      readonly candidateId: string;
      readonly reasons: readonly string[];
      readonly source: MemorySource;
      readonly flaggedBy: string | null;
    });

function live(state: MemoryBucketState, memoryId: string): LiveMemory {
  const memory = findLiveMemory(state, memoryId);
  if (!memory) throw new MemoryNotFoundError(memoryId);
  return memory;
}

/** Least recently used first; of memories last used together (one recall), the oldest added first. */
const byRecency = (a: LiveMemory, b: LiveMemory): number =>
  a.lastUsedSeq - b.lastUsedSeq || a.addedSeq - b.addedSeq;

/**
 * What a write to the shared bucket retires: only the writer's own memories, least recently used first. A user's
 * contribution beyond their share retires their own oldest contributions; at the bucket's cap, the writer's own
 * least recently used memory makes room; with none of theirs left to retire, the write is refused.
 */
function sharedRetirements(
  state: MemoryBucketState,
  contributor: string,
  direct: boolean,
  cap: number,
  share: number | undefined,
): LiveMemory[] {
  const own = state.memories.filter((memory) => memory.contributor === contributor).toSorted(byRecency);
  const retiring: LiveMemory[] = [];
  if (!direct && share !== undefined) {
    const contributed = own.filter((memory) => !memory.direct);
    retiring.push(...contributed.slice(0, Math.max(0, contributed.length - share + 1)));
  }
  const stillNeeded = state.memories.length - retiring.length - cap + 1;
  if (stillNeeded > 0) {
    const left = own.filter((memory) => !retiring.includes(memory));
    if (left.length < stillNeeded) throw new SharedMemoryFullError(cap);
    retiring.push(...left.slice(0, stillNeeded));
  }
  return retiring;
}

type MemoryOf<Type extends MemoryBucketCommand['type']> = Extract<
  MemoryBucketCommand,
  { readonly type: Type }
>;

function addMemory(command: MemoryOf<'AddMemory'>, state: MemoryBucketState): MemoryEvent[] {
  const { agentId, owner, memoryId, cap, share } = command;
  if (!Number.isInteger(cap) || cap < 1)
    throw new ValidationError(
      'invalid_memory_cap',
      'the memory cap must be a whole number of at least 1',
      'cap',
    );
  if (share !== undefined && (!Number.isInteger(share) || share < 1))
    throw new ValidationError(
      'invalid_memory_share',
      "a contributor's share must be a whole number of at least 1",
      'share',
    );
  // A retried add finds its memory (or finds it already retired or deleted): nothing to add again.
  if (findLiveMemory(state, memoryId) || state.goneIds.includes(memoryId)) return [];
  const retiring =
    bucketKindOf(owner) === 'shared'
      ? sharedRetirements(state, command.addedBy, isDirectWrite(command.source), cap, share)
      : // Enough to leave room for one: more than one only when the cap was lowered since the bucket filled.
        state.memories.toSorted(byRecency).slice(0, Math.max(0, state.memories.length - cap + 1));
  return [
    ...retiring.map((memory): MemoryEvent => ({
      type: 'MemoryRetired',
      data: { agentId, owner, memoryId: memory.memoryId, reason: 'cap_reached' },
    })),
    {
      type: 'MemoryAdded',
      data: {
        agentId,
        owner,
        bucket: bucketKindOf(owner),
        memoryId,
        text: command.text,
        source: command.source,
        addedBy: command.addedBy,
      },
    },
  ];
}

function reviseMemory(command: MemoryOf<'ReviseMemory'>, state: MemoryBucketState): MemoryEvent[] {
  const { agentId, owner } = command;
  const memory = live(state, command.memoryId);
  return [
    {
      type: 'MemoryRevised',
      data: {
        agentId,
        owner,
        memoryId: memory.memoryId,
        version: memory.version + 1,
        text: command.text,
        source: command.source,
        revisedBy: command.revisedBy,
        reason: command.reason,
      },
    },
  ];
}

function rollBackMemory(command: MemoryOf<'RollBackMemory'>, state: MemoryBucketState): MemoryEvent[] {
  const { agentId, owner } = command;
  const memory = live(state, command.memoryId);
  const { toVersion } = command;
  // A version that never existed is a bad request (400); the current one is a conflict with the state (409).
  if (!memory.versions.some((entry) => entry.version === toVersion))
    throw new ValidationError(
      'memory_version_not_found',
      `Memory '${memory.memoryId}' has no version ${toVersion}`,
      'toVersion',
    );
  if (toVersion === memory.version)
    throw new ConflictError(
      'memory_version_is_current',
      `Version ${toVersion} is the current version of memory '${memory.memoryId}'`,
      'toVersion',
    );
  return [
    {
      type: 'MemoryRolledBack',
      data: {
        agentId,
        owner,
        memoryId: memory.memoryId,
        version: memory.version + 1,
        toVersion,
        text: command.text,
        rolledBackBy: command.rolledBackBy,
      },
    },
  ];
}

function recordRecall(command: MemoryOf<'RecordRecall'>, state: MemoryBucketState): MemoryEvent[] {
  const { agentId, owner } = command;
  // Memories deleted or retired while the turn ran are skipped: the recall only speaks of live ones.
  const memoryIds = [...new Set(command.memoryIds)].filter((id) => findLiveMemory(state, id));
  if (memoryIds.length === 0) return [];
  return [
    {
      type: 'MemoriesRecalled',
      data: {
        agentId,
        owner,
        memoryIds,
        conversationId: command.conversationId,
        messageId: command.messageId,
        ...(command.userId === undefined ? {} : { userId: command.userId }),
      },
    },
  ];
}

function deleteMemory(command: MemoryOf<'DeleteMemory'>, state: MemoryBucketState): MemoryEvent[] {
  const { agentId, owner } = command;
  if (command.reason === 'agent_deleted' && !findLiveMemory(state, command.memoryId)) return [];
  const memory = live(state, command.memoryId);
  return [
    {
      type: 'MemoryDeleted',
      data: { agentId, owner, memoryId: memory.memoryId, reason: command.reason },
    },
  ];
}

function clearBucket(command: MemoryOf<'ClearBucket'>, state: MemoryBucketState): MemoryEvent[] {
  const { agentId, owner } = command;
  if (state.memories.length === 0) return [];
  return [
    {
      type: 'MemoryBucketCleared',
      data: {
        agentId,
        owner,
        memoryIds: state.memories.map((memory) => memory.memoryId),
        clearedBy: command.clearedBy,
        reason: command.reason,
      },
    },
  ];
}

function recordFlagged(command: MemoryOf<'RecordFlagged'>, state: MemoryBucketState): MemoryEvent[] {
  const { agentId, owner } = command;
  if (command.reasons.length === 0)
    throw new ValidationError('invalid_screening_reasons', 'a refusal needs at least one reason', 'reasons');
  if (state.flaggedCandidateIds.includes(command.candidateId)) return [];
  return [
    {
      type: 'MemoryScreeningFlagged',
      data: {
        agentId,
        owner,
        candidateId: command.candidateId,
        reasons: command.reasons,
        source: command.source,
        flaggedBy: command.flaggedBy,
      },
    },
  ];
}

const decide = decideByType<MemoryBucketState, MemoryBucketCommand, MemoryEvent>({
  AddMemory: addMemory,
  ReviseMemory: reviseMemory,
  RollBackMemory: rollBackMemory,
  RecordRecall: recordRecall,
  DeleteMemory: deleteMemory,
  ClearBucket: clearBucket,
  RecordFlagged: recordFlagged,
});

export const memoryBucketDecider: Decider<MemoryBucketState, MemoryBucketCommand, MemoryEvent> = {
  initialState: initialMemoryBucketState,
  evolve: evolveMemoryBucket,
  decide,
};
