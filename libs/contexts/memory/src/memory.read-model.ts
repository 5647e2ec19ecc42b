// The Memory read models, built by projections/memory under one projection: the live memories of every bucket (one
// document each, with its version history) and the shared-memory proposals. "Which answers used this memory" is the
// provenance read model's (libs/contexts/audit), one mechanism for every source kind. Texts stay sealed here as in the log: a query opens them with the memory's
// data key while it exists. Retired, deleted and cleared memories leave no document behind.
import { defineReadModel } from '#eventsourcing';
import type { MemoryBucketKind, MemorySource, Sealed } from './memory.events.js';
import type { MemoryProposalStatus } from './memory-proposal.events.js';

export interface MemoryVersionView {
  readonly version: number;
  readonly text: Sealed;
  readonly source: MemorySource;
  /** The user who wrote this version; null when the extractor superseded a contradicted fact. */
  readonly by: string | null;
  readonly at: string;
  readonly reason: 'added' | 'edited' | 'superseded' | 'rolled_back';
  /** rolled_back: the version whose text it brought back; null otherwise. */
  readonly rolledBackTo: number | null;
}

export interface MemoryView {
  readonly id: string;
  readonly agentId: string;
  /** The bucket's owner: the userId of a personal bucket, or 'shared'. */
  readonly owner: string;
  readonly bucket: MemoryBucketKind;
  /** The owner of a personal memory; null for a shared one. */
  readonly userId: string | null;
  /** The current version's text. */
  readonly text: Sealed;
  readonly version: number;
  /** Every version, oldest first; the last is the current one. */
  readonly versions: readonly MemoryVersionView[];
  /** When it was last added, revised, rolled back or recalled by a turn. */
  readonly lastUsedAt: string;
  readonly createdAt: string;
  /** When its text last changed. */
  readonly updatedAt: string;
}

export interface MemoryProposalView {
  readonly id: string;
  readonly agentId: string;
  /** The user it was proposed to, the only one who sees it. */
  readonly userId: string;
  readonly text: Sealed;
  readonly state: MemoryProposalStatus;
  /** The memory the answer created (confirmed: shared; kept_personal: the user's), else null. */
  readonly memoryId: string | null;
  /** Why screening refused it (flagged); empty otherwise. */
  readonly flagReasons: readonly string[];
  readonly conversationId: string;
  readonly messageId: string;
  readonly createdAt: string;
  /** When it was answered or refused; null while pending. */
  readonly answeredAt: string | null;
}

export const MEMORIES = 'memories';
export const MEMORY_PROPOSALS = 'memory_proposals';
export const MEMORY_PROJECTION = 'memory';

export const MEMORIES_READ_MODEL = defineReadModel<MemoryView>({
  name: MEMORIES,
  projection: MEMORY_PROJECTION,
  // A bucket's memories; and all of a user's personal memories across Agents (owner = their userId).
  indexes: [{ fields: ['agentId', 'owner'] }, { fields: ['owner'] }],
});

export const MEMORY_PROPOSALS_READ_MODEL = defineReadModel<MemoryProposalView>({
  name: MEMORY_PROPOSALS,
  projection: MEMORY_PROJECTION,
  indexes: [{ fields: ['agentId', 'userId', 'state'] }],
});

/** The read models a memory write waits for before its route reads its change back. */
export const MEMORY_READ_MODELS = [MEMORIES_READ_MODEL, MEMORY_PROPOSALS_READ_MODEL] as const;
