// Builds the Memory read models (libs/contexts/memory/src/memory.read-model.ts): live memories with their version history
// (and when each was last recalled) and shared-memory proposals. Texts stay sealed (the query opens them). A memory
// retired by the cap, deleted or cleared loses its document. Which answers used a memory is the provenance read
// model's (projections/provenance), as for every other source. Version 2: the recall rows of version 1 are gone.
import { defineProjector, type EnvelopeOf, type ProjectionContext } from '#eventsourcing';
import type { WriteOp } from '#read-store';
import type { MemoryEvent } from '#memory';
import type { MemoryProposalEvent } from '#memory';
import {
  MEMORIES,
  MEMORIES_READ_MODEL,
  MEMORY_PROJECTION,
  MEMORY_PROPOSALS,
  MEMORY_PROPOSALS_READ_MODEL,
  type MemoryProposalView,
  type MemoryVersionView,
  type MemoryView,
} from '#memory';

type Event = MemoryEvent | MemoryProposalEvent;

const deleteMemory = (id: string): WriteOp => ({ kind: 'delete', collection: MEMORIES, id });

/** The memory's next version, appended once however often the event is replayed. */
async function versionAdded(
  context: ProjectionContext,
  event: EnvelopeOf<MemoryEvent, 'MemoryRevised' | 'MemoryRolledBack'>,
  entry: (current: MemoryView) => Omit<MemoryVersionView, 'version' | 'text' | 'at'>,
): Promise<WriteOp[]> {
  const { memoryId, version, text } = event.data;
  const current = await context.get<MemoryView>(MEMORIES, memoryId);
  if (!current) return [];
  const at = event.metadata.occurredAt;
  const versions = current.versions.some((known) => known.version === version)
    ? current.versions
    : [...current.versions, { version, text, at, ...entry(current) }];
  const set: Partial<MemoryView> = { text, version, versions, lastUsedAt: at, updatedAt: at };
  return [{ kind: 'patch', collection: MEMORIES, id: memoryId, set }];
}

const proposalAnswered =
  (state: MemoryProposalView['state']) =>
  (event: EnvelopeOf<MemoryProposalEvent>, set: Partial<MemoryProposalView> = {}): WriteOp[] => [
    {
      kind: 'patch',
      collection: MEMORY_PROPOSALS,
      id: event.data.proposalId,
      set: { ...set, state, answeredAt: event.metadata.occurredAt },
    },
  ];

export const memoryProjector = defineProjector<Event>({
  name: MEMORY_PROJECTION,
  version: 2,
  collections: [MEMORIES_READ_MODEL, MEMORY_PROPOSALS_READ_MODEL],
  on: {
    MemoryAdded: ({ data, metadata }) => {
      const at = metadata.occurredAt;
      const doc: MemoryView = {
        id: data.memoryId,
        agentId: data.agentId,
        owner: data.owner,
        bucket: data.bucket,
        userId: data.bucket === 'personal' ? data.owner : null,
        text: data.text,
        version: 1,
        versions: [
          {
            version: 1,
            text: data.text,
            source: data.source,
            by: data.addedBy,
            at,
            reason: 'added',
            rolledBackTo: null,
          },
        ],
        lastUsedAt: at,
        createdAt: at,
        updatedAt: at,
      };
      return [{ kind: 'upsert', collection: MEMORIES, doc: { ...doc } }];
    },
    MemoryRevised: (event, context) =>
      versionAdded(context, event, () => ({
        source: event.data.source,
        by: event.data.revisedBy,
        reason: event.data.reason,
        rolledBackTo: null,
      })),
    MemoryRolledBack: (event, context) =>
      versionAdded(context, event, (current) => ({
        // The text is the old version's, so is where it came from.
        source: (
          current.versions.find((known) => known.version === event.data.toVersion) ?? current.versions[0]!
        ).source,
        by: event.data.rolledBackBy,
        reason: 'rolled_back',
        rolledBackTo: event.data.toVersion,
      })),
    MemoriesRecalled: ({ data, metadata }) =>
      data.memoryIds.map((memoryId): WriteOp => ({
        kind: 'patch',
        collection: MEMORIES,
        id: memoryId,
        set: { lastUsedAt: metadata.occurredAt },
      })),
    MemoryRetired: ({ data }) => [deleteMemory(data.memoryId)],
    MemoryDeleted: ({ data }) => [deleteMemory(data.memoryId)],
    MemoryBucketCleared: ({ data }) => data.memoryIds.map(deleteMemory),
    // The refusal is an audit fact of the log; no read model lists it.
    MemoryScreeningFlagged: null,
    MemoryProposed: ({ data, metadata }) => {
      const doc: MemoryProposalView = {
        id: data.proposalId,
        agentId: data.agentId,
        userId: data.userId,
        text: data.text,
        state: 'pending',
        memoryId: null,
        flagReasons: [],
        conversationId: data.conversationId,
        messageId: data.messageId,
        createdAt: metadata.occurredAt,
        answeredAt: null,
      };
      return [{ kind: 'upsert', collection: MEMORY_PROPOSALS, doc: { ...doc } }];
    },
    MemoryProposalConfirmed: (event) =>
      proposalAnswered('confirmed')(event, { memoryId: event.data.memoryId }),
    MemoryProposalKeptPersonal: (event) =>
      proposalAnswered('kept_personal')(event, { memoryId: event.data.memoryId }),
    MemoryProposalDiscarded: (event) => proposalAnswered('discarded')(event),
    MemoryProposalFlagged: (event) => proposalAnswered('flagged')(event, { flagReasons: event.data.reasons }),
  },
});
