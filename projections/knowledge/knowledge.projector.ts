// Read models of Knowledge: documents (what the document lists show, with status, tags and the last failure) and
// tags. A document's content is not here: it stays in the blob store.
import type { EventEnvelope } from '../../libs/kernel/src/index.js';
import type { Projector, ProjectionContext } from '../../libs/eventsourcing/src/projector.js';
import type { WriteOp } from '../../libs/read-store/src/read-store.port.js';
import {
  DOCUMENT_EVENT_TYPES,
  type DocumentEvent,
  type DocumentProvider,
  type DocumentScope,
  type DocumentStatus,
} from '../../libs/knowledge/src/document.events.js';
import { TAG_EVENT_TYPES, type TagEvent } from '../../libs/knowledge/src/tag.events.js';

export interface DocumentView {
  readonly id: string;
  readonly name: string;
  readonly scope: DocumentScope;
  readonly ownerId: string;
  readonly provider: DocumentProvider;
  readonly status: DocumentStatus;
  readonly tagIds: readonly string[];
  readonly contentHash: string;
  readonly blobId: string;
  readonly sizeBytes: number;
  /** Declared by the client until processing sniffs the real type. */
  readonly mimeType: string | null;
  readonly version: number;
  readonly chunkCount: number | null;
  readonly error: { readonly reason: string; readonly message: string } | null;
  readonly lastModified: string;
  readonly createdAt: string;
}

export interface TagView {
  readonly id: string;
  readonly agentId: string;
  readonly name: string;
  readonly color: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const KNOWLEDGE_DOCUMENTS = 'knowledge_documents';
export const KNOWLEDGE_TAGS = 'knowledge_tags';

function projectDocument(event: DocumentEvent, at: string, current: DocumentView | null): WriteOp[] {
  const id = event.data.documentId;
  const patch = (set: Partial<DocumentView>): WriteOp[] => [
    { kind: 'patch', collection: KNOWLEDGE_DOCUMENTS, id, set },
  ];
  switch (event.type) {
    case 'DocumentAdded': {
      const { content, documentId: _documentId, ...fields } = event.data;
      const doc: DocumentView = {
        id,
        ...fields,
        status: 'Pending',
        contentHash: content.contentHash,
        blobId: content.blobId,
        sizeBytes: content.sizeBytes,
        mimeType: content.declaredType,
        version: 1,
        chunkCount: null,
        error: null,
        lastModified: at,
        createdAt: at,
      };
      return [{ kind: 'upsert', collection: KNOWLEDGE_DOCUMENTS, doc: { ...doc } }];
    }
    case 'DocumentRenamed':
      return patch({ name: event.data.name, lastModified: at });
    case 'DocumentContentReplaced':
      return patch({
        contentHash: event.data.content.contentHash,
        blobId: event.data.content.blobId,
        sizeBytes: event.data.content.sizeBytes,
        mimeType: event.data.content.declaredType,
        version: event.data.version,
        status: 'Pending',
        error: null,
        lastModified: at,
      });
    case 'DocumentTagAttached':
      return current ? patch({ tagIds: [...current.tagIds, event.data.tagId], lastModified: at }) : [];
    case 'DocumentTagDetached':
      return current
        ? patch({ tagIds: current.tagIds.filter((tagId) => tagId !== event.data.tagId), lastModified: at })
        : [];
    case 'DocumentReprocessingRequested':
      return patch({ version: event.data.version, status: 'Pending', error: null });
    case 'DocumentProcessingStarted':
      return patch({ status: 'Processing' });
    case 'DocumentReady':
      return patch({
        status: 'Ready',
        mimeType: event.data.mimeType,
        chunkCount: event.data.chunkCount,
        error: null,
      });
    case 'DocumentProcessingSkipped':
      return patch({ status: 'Ready' });
    case 'DocumentFailed':
      return patch({ status: 'Failed', error: { reason: event.data.reason, message: event.data.message } });
    case 'DocumentDeleted':
      return [{ kind: 'delete', collection: KNOWLEDGE_DOCUMENTS, id }];
    case 'DocumentContentPurged':
    case 'DocumentTagsIndexed':
      return [];
  }
}

function projectTag(event: TagEvent, at: string): WriteOp[] {
  const id = event.data.tagId;
  switch (event.type) {
    case 'KnowledgeTagCreated': {
      const { tagId: _tagId, ...fields } = event.data;
      return [
        { kind: 'upsert', collection: KNOWLEDGE_TAGS, doc: { id, ...fields, createdAt: at, updatedAt: at } },
      ];
    }
    case 'KnowledgeTagRenamed':
      return [
        { kind: 'patch', collection: KNOWLEDGE_TAGS, id, set: { name: event.data.name, updatedAt: at } },
      ];
    case 'KnowledgeTagRecolored':
      return [
        { kind: 'patch', collection: KNOWLEDGE_TAGS, id, set: { color: event.data.color, updatedAt: at } },
      ];
    case 'KnowledgeTagDeleted':
      return [{ kind: 'delete', collection: KNOWLEDGE_TAGS, id }];
  }
}

const TAG_TYPES = new Set<string>(TAG_EVENT_TYPES);

export const knowledgeProjector: Projector = {
  name: 'knowledge',
  version: 1,
  collections: [
    {
      name: KNOWLEDGE_DOCUMENTS,
      indexes: [
        { fields: ['ownerId', 'createdAt'] },
        { fields: ['scope'] },
        { fields: ['status'] },
        { fields: ['blobId'] },
      ],
    },
    { name: KNOWLEDGE_TAGS, indexes: [{ fields: ['agentId', 'createdAt'] }] },
  ],
  eventTypes: [...DOCUMENT_EVENT_TYPES, ...TAG_EVENT_TYPES],
  async project(envelope: EventEnvelope, context: ProjectionContext): Promise<WriteOp[]> {
    const at = envelope.metadata.occurredAt;
    if (TAG_TYPES.has(envelope.type)) return projectTag(envelope as unknown as TagEvent, at);
    const event = envelope as unknown as DocumentEvent;
    const needsCurrent = event.type === 'DocumentTagAttached' || event.type === 'DocumentTagDetached';
    const current = needsCurrent
      ? await context.get<DocumentView>(KNOWLEDGE_DOCUMENTS, event.data.documentId)
      : null;
    return projectDocument(event, at, current);
  },
};
