// Which answers used a source (issue 25 §3): a document (version), a chunk, a Skill version, a memory (version), a
// system prompt (version: its hash), from the provenance read model every recorded answer feeds — one mechanism for
// every kind. Each answer is shown to whoever may read it (the policy's `provenance.read`: admins every answer, a
// user their own answers of an Agent they use); a deleted or superseded document keeps its answers listed, with the
// document shown deleted (its stream folded now). A chunk (`<documentId>:<version>:<index>`, the search's chunk id)
// is its document version's passages that overlap the chunk's range, read from the version's chunks while they
// exist (409 `chunk_content_purged` after the document's deletion, to admins: ask for the document version instead;
// anyone else gets an empty answer, as for a chunk they do not see).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ConflictError, ValidationError } from '#kernel';
import { Filters, permits, type AgentOwnership, type Caller } from '#access';
import { EVENT_STORE, type EventStore } from '#event-store';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { loadStateAsOf } from '#eventsourcing';
import { READ_STORE, type Filter, type ReadStore } from '#read-store';
import { AGENTS, spaceOf, type AgentView } from '#agents';
import {
  documentStreamId,
  evolveDocument,
  initialDocumentState,
  type DocumentEvent,
  type DocumentState,
} from '#knowledge';
import {
  evolveSkill,
  findSkillVersion,
  initialSkillState,
  skillStreamId,
  type SkillEvent,
  type SkillState,
} from '#skills';
import {
  PROVENANCE_CONVERSATIONS,
  PROVENANCE_USES,
  type CitedPassage,
  type ProvenanceConversationView,
  type ProvenanceUseView,
} from '../../provenance/provenance.read-model.js';
import { SOURCE_PATTERN, type ProvenanceDto, type ProvenanceQuery } from './get-provenance.schema.js';

type Answer = z.output<typeof ProvenanceDto>;

@Filters('provenance.read')
export class GetProvenance extends Query<Answer> {
  constructor(
    readonly query: z.output<typeof ProvenanceQuery>,
    readonly caller: Caller,
  ) {
    super();
  }
}

interface SourceStatus {
  readonly status: 'live' | 'deleted' | 'unknown';
  readonly name: string | null;
  readonly currentVersion: string | null;
}

const UNKNOWN: SourceStatus = { status: 'unknown', name: null, currentVersion: null };

@QueryHandler(GetProvenance)
export class GetProvenanceHandler implements IQueryHandler<GetProvenance> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  async execute({ query, caller }: GetProvenance): Promise<Answer> {
    const [, kind, id, version] = SOURCE_PATTERN.exec(query.source)! as unknown as [
      string,
      Answer['source']['kind'],
      string,
      string | undefined,
    ];
    let filter: Filter;
    let range: { start: number; end: number } | null = null;
    let documentId: string | null = null;
    if (kind === 'chunk') {
      const admin = permits(caller, 'provenance.read', null);
      const chunk = await this.chunk(id).catch((error: unknown) => {
        // Only admins learn that a chunk's document is gone: anyone else gets the empty answer of a chunk unseen.
        if (admin || !(error instanceof ConflictError)) throw error;
        return null;
      });
      if (!chunk) return { source: { kind, id, version: null, ...UNKNOWN }, data: [], nextCursor: null };
      documentId = chunk.documentId;
      range = chunk;
      filter = { source: `document:${chunk.documentId}`, version: chunk.version };
      if (query.retrieved === 'false') filter = { ...filter, cited: true };
    } else {
      if (kind === 'document') documentId = id;
      filter = {
        source: `${kind}:${id}`,
        ...(version === undefined
          ? {}
          : kind === 'skill' && version.startsWith('skv_')
            ? { versionId: version }
            : { version }),
        ...(kind === 'document' && query.retrieved === 'false' ? { cited: true } : {}),
      };
    }
    const page = await this.readStore
      .reader<ProvenanceUseView>(PROVENANCE_USES)
      .find(filter, { sort: { field: 'at' }, limit: query.limit, cursor: query.cursor ?? null });
    const rows = range
      ? page.data.filter((row) => row.passages.some((passage) => overlaps(passage, range)))
      : page.data;
    const visible = await this.visible(rows, caller);
    const conversations = await this.conversations(visible);
    const status =
      visible.length > 0 || permits(caller, 'provenance.read', null)
        ? documentId
          ? await this.documentStatus(documentId)
          : kind === 'skill'
            ? await this.skillStatus(id)
            : UNKNOWN
        : UNKNOWN;
    return {
      source: {
        kind,
        id,
        version: kind === 'chunk' ? (filter['version'] as string) : (version ?? null),
        ...status,
        name: status.name ?? visible.find((row) => row.documentName)?.documentName ?? null,
      },
      data: visible.map((row) => ({
        conversationId: row.conversationId,
        messageId: row.messageId,
        at: row.at,
        userId: row.userId,
        agentId: row.agentId,
        version: row.version,
        versionId: row.versionId,
        passages: row.passages.map((passage) => ({ ...passage, sectionPath: [...passage.sectionPath] })),
        cited: row.cited,
        messageDeleted: row.messageDeleted,
        conversationDeleted: conversations.get(row.conversationId)?.deleted ?? false,
      })),
      nextCursor: page.nextCursor,
    };
  }

  /** The rows whose answers the caller may read: the policy asked per answer, with its Agent (null once deleted). */
  private async visible(rows: readonly ProvenanceUseView[], caller: Caller): Promise<ProvenanceUseView[]> {
    if (permits(caller, 'provenance.read', null)) return [...rows];
    const agents = new Map<string, AgentOwnership | null>();
    const reader = this.readStore.reader<AgentView>(AGENTS);
    for (const agentId of new Set(rows.map((row) => row.agentId))) {
      const agent = await reader.get(agentId);
      // With its Space's members: a user's answers are theirs to see while they may use the Agent.
      agents.set(agentId, agent ? { ...agent, space: await spaceOf(this.readStore, agent) } : null);
    }
    return rows.filter((row) =>
      permits(caller, 'provenance.read', { agent: agents.get(row.agentId) ?? null, userId: row.userId }),
    );
  }

  private async conversations(rows: readonly ProvenanceUseView[]) {
    const reader = this.readStore.reader<ProvenanceConversationView>(PROVENANCE_CONVERSATIONS);
    const found = new Map<string, ProvenanceConversationView>();
    for (const conversationId of new Set(rows.map((row) => row.conversationId))) {
      const conversation = await reader.get(conversationId);
      if (conversation) found.set(conversationId, conversation);
    }
    return found;
  }

  /** Whether the document still exists (its stream folded now), its name and version. */
  private async documentStatus(documentId: string): Promise<SourceStatus> {
    const { state } = await loadStateAsOf<DocumentState, DocumentEvent>(
      this.eventStore,
      documentStreamId(documentId),
      new Date(8.64e15),
      initialDocumentState(),
      evolveDocument,
    );
    if (state.status === 'absent') return UNKNOWN;
    if (state.status === 'deleted') return { status: 'deleted', name: null, currentVersion: null };
    return { status: 'live', name: state.name, currentVersion: String(state.version) };
  }

  private async skillStatus(skillId: string): Promise<SourceStatus> {
    const { state } = await loadStateAsOf<SkillState, SkillEvent>(
      this.eventStore,
      skillStreamId(skillId),
      new Date(8.64e15),
      initialSkillState(),
      evolveSkill,
    );
    if (state.status === 'absent') return UNKNOWN;
    if (state.status === 'deleted') return { status: 'deleted', name: state.name, currentVersion: null };
    const active = findSkillVersion(state, state.activeVersionId);
    return { status: 'live', name: state.name, currentVersion: active ? String(active.number) : null };
  }

  /** A chunk id's document, version and range, from the version's chunks (while they exist). */
  private async chunk(chunkId: string) {
    const match = /^(.+):(\d+):(\d+)$/.exec(chunkId);
    if (!match)
      throw new ValidationError(
        'invalid_chunk_id',
        `'${chunkId}' is not a chunk id (<documentId>:<version>:<index>)`,
        'source',
      );
    const [, documentId, version, index] = match as unknown as [string, string, string, string];
    let chunksBlobId: string | null = null;
    for (const event of await this.eventStore.readStream(documentStreamId(documentId))) {
      const data = event.data as { version?: number; chunksBlobId?: string };
      if (event.type === 'DocumentReady' && String(data.version) === version)
        chunksBlobId = data.chunksBlobId ?? null;
    }
    const json = chunksBlobId ? await this.blobs.get(chunksBlobId) : null;
    const chunk = json
      ? (JSON.parse(json.toString('utf8')) as { index: number; start: number; end: number }[]).find(
          (entry) => String(entry.index) === index,
        )
      : undefined;
    if (!chunk)
      throw new ConflictError(
        'chunk_content_purged',
        `chunk '${chunkId}' is not known (its document was deleted, or never had it): ask for ` +
          `document:${documentId}@${version}`,
        'source',
      );
    return { documentId, version, start: chunk.start, end: chunk.end };
  }
}

const overlaps = (passage: CitedPassage, range: { start: number; end: number }): boolean =>
  passage.start < range.end && passage.end > range.start;
