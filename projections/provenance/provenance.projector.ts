// Builds the provenance read model (libs/contexts/audit/src/provenance/provenance.read-model.ts) from the conversations' log:
// each recorded answer gives one row per source version it used — a document version (retrieved into its prompt,
// and whether the answer cites it, with the passages), a memory
// version, a Skill version, its system prompt (by hash) — and keeps whose conversation it is. Deleting a message or a
// conversation marks its rows; nothing is removed, so the answers that relied on deleted content stay listed.
// Idempotent: rows are keyed by (message, source version), upserted whole.
import { defineProjector, type EnvelopeOf, type ProjectionContext } from '#eventsourcing';
import type { WriteOp } from '#read-store';
import { TOOL_CALL_EVENTS_NOT_READ, type Citation, type ConversationEvent } from '#conversations';
import {
  PROVENANCE_CONVERSATIONS,
  PROVENANCE_CONVERSATIONS_READ_MODEL,
  PROVENANCE_PROJECTION,
  PROVENANCE_USES,
  PROVENANCE_USES_READ_MODEL,
  provenanceUseId,
  type CitedPassage,
  type ProvenanceConversationView,
  type ProvenanceUseView,
} from '#audit';

type Recorded = EnvelopeOf<ConversationEvent, 'AssistantMessageRecorded'>;
type Row = Omit<
  ProvenanceUseView,
  'id' | 'source' | 'conversationId' | 'messageId' | 'agentId' | 'userId' | 'at' | 'messageDeleted'
>;

/**
 * The source versions one answer used, merged per (kind, id, version): the documents its prompt held (retrieved
 * passages) with `cited` set when the answer cites them (their passages then are the cited ones), the memories and
 * Skill versions its prompt held.
 */
export function sourcesOf(data: Pick<Recorded['data'], 'citations' | 'provenance'>): Row[] {
  const rows = new Map<string, Row>();
  const base = { versionId: null, documentName: null, contentHash: null, passages: [], cited: false };
  const keyOf = (row: Pick<Row, 'kind' | 'sourceId' | 'version'>) =>
    `${row.kind}:${row.sourceId}@${row.version}`;
  const documentRow = (citation: Citation): Row => ({
    ...base,
    kind: 'document',
    sourceId: citation.documentId,
    version: String(citation.documentVersion),
    documentName: citation.documentName,
    contentHash: citation.contentHash,
  });
  const passageOf = (citation: Citation): CitedPassage => ({
    start: citation.start,
    end: citation.end,
    sectionPath: [...citation.sectionPath],
  });
  for (const citation of data.citations) {
    const row = documentRow(citation);
    const known = rows.get(keyOf(row)) ?? { ...row, cited: true };
    rows.set(keyOf(row), { ...known, passages: [...known.passages, passageOf(citation)] });
  }
  for (const source of data.provenance.sources) {
    const row = documentRow(source);
    const known = rows.get(keyOf(row));
    if (known?.cited) continue;
    rows.set(keyOf(row), { ...(known ?? row), passages: [...(known?.passages ?? []), passageOf(source)] });
  }
  for (const item of data.provenance.contextItems ?? [])
    // A library prompt (`prompt:<promptId>@<version>`) beside the system prompt's row (`prompt:<agentId>@<sha>`).
    if (item.kind === 'memory' || item.kind === 'skill' || item.kind === 'prompt') {
      const row: Row = {
        ...base,
        kind: item.kind,
        sourceId: item.id,
        version: String(item.version),
        versionId: item.versionId ?? null,
      };
      rows.set(keyOf(row), row);
    }
  return [...rows.values()];
}

async function answerRecorded(event: Recorded, context: ProjectionContext): Promise<WriteOp[]> {
  const { conversationId, messageId, provenance } = event.data;
  const conversation = await context.get<ProvenanceConversationView>(
    PROVENANCE_CONVERSATIONS,
    conversationId,
  );
  if (!conversation) return [];
  const common = {
    conversationId,
    messageId,
    agentId: conversation.agentId,
    userId: conversation.userId,
    at: event.metadata.occurredAt,
    messageDeleted: false,
  };
  const rows: Row[] = [
    ...sourcesOf(event.data),
    {
      kind: 'prompt',
      sourceId: conversation.agentId,
      version: provenance.systemPromptSha256,
      versionId: null,
      documentName: null,
      contentHash: null,
      passages: [],
      cited: false,
    },
  ];
  return rows.map((row) => ({
    kind: 'upsert',
    collection: PROVENANCE_USES,
    doc: {
      ...row,
      ...common,
      id: provenanceUseId(messageId, row.kind, row.sourceId, row.version),
      source: `${row.kind}:${row.sourceId}`,
    } satisfies ProvenanceUseView,
  }));
}

async function messageDeleted(
  event: EnvelopeOf<ConversationEvent, 'MessageDeleted'>,
  context: ProjectionContext,
): Promise<WriteOp[]> {
  const rows = await context.find<ProvenanceUseView>(
    PROVENANCE_USES,
    { messageId: event.data.messageId },
    { limit: 1000 },
  );
  return rows.data.map((row) => ({
    kind: 'patch',
    collection: PROVENANCE_USES,
    id: row.id,
    set: { messageDeleted: true },
  }));
}

export const provenanceProjector = defineProjector<ConversationEvent>({
  name: PROVENANCE_PROJECTION,
  version: 1,
  collections: [PROVENANCE_USES_READ_MODEL, PROVENANCE_CONVERSATIONS_READ_MODEL],
  on: {
    ...TOOL_CALL_EVENTS_NOT_READ,
    ConversationStarted: ({ data }) => [
      {
        kind: 'upsert',
        collection: PROVENANCE_CONVERSATIONS,
        doc: {
          id: data.conversationId,
          agentId: data.agentId,
          userId: data.userId,
          deleted: false,
        } satisfies ProvenanceConversationView,
      },
    ],
    AssistantMessageRecorded: answerRecorded,
    BranchSwitched: null,
    MessageDeleted: messageDeleted,
    ConversationDeleted: ({ data }) => [
      {
        kind: 'patch',
        collection: PROVENANCE_CONVERSATIONS,
        id: data.conversationId,
        set: { deleted: true },
      },
    ],
    UserMessagePosted: null,
    ConversationCompacted: null,
    ConversationRenamed: null,
    ConversationArchived: null,
    ConversationPinned: null,
    ConversationUnpinned: null,
    ConversationUnarchived: null,
    ConversationMadePrivate: null,
    ConversationMadeNormal: null,
    CheckpointDiscarded: null,
  },
});
