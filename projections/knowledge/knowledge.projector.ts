// Builds the Knowledge read models (libs/contexts/knowledge/src/knowledge.read-model.ts): documents and tags.
import { defineProjector, type EnvelopeOf } from '#eventsourcing';
import type { WriteOp } from '#read-store';
import type { DocumentEvent, TagEvent } from '#knowledge';
import {
  DOCUMENTS_READ_MODEL,
  KNOWLEDGE_DOCUMENTS,
  KNOWLEDGE_PROJECTION,
  KNOWLEDGE_TAGS,
  TAGS_READ_MODEL,
  type DocumentView,
  type TagView,
} from '#knowledge';

const patchDocument = (id: string, set: Partial<DocumentView>): WriteOp[] => [
  { kind: 'patch', collection: KNOWLEDGE_DOCUMENTS, id, set },
];
const patchTag = (id: string, set: Partial<TagView>): WriteOp[] => [
  { kind: 'patch', collection: KNOWLEDGE_TAGS, id, set },
];
const at = (event: EnvelopeOf<DocumentEvent | TagEvent>) => event.metadata.occurredAt;

export const knowledgeProjector = defineProjector<DocumentEvent | TagEvent>({
  name: KNOWLEDGE_PROJECTION,
  version: 2,
  collections: [DOCUMENTS_READ_MODEL, TAGS_READ_MODEL],
  on: {
    DocumentAdded: (event) => {
      const { content, documentId: id, ...fields } = event.data;
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
        lastModified: at(event),
        indexedAt: null,
        createdAt: at(event),
      };
      return [{ kind: 'upsert', collection: KNOWLEDGE_DOCUMENTS, doc: { ...doc } }];
    },
    DocumentRenamed: (event) =>
      patchDocument(event.data.documentId, { name: event.data.name, lastModified: at(event) }),
    DocumentContentReplaced: ({ data, metadata }) =>
      patchDocument(data.documentId, {
        contentHash: data.content.contentHash,
        blobId: data.content.blobId,
        sizeBytes: data.content.sizeBytes,
        mimeType: data.content.declaredType,
        version: data.version,
        status: 'Pending',
        error: null,
        lastModified: metadata.occurredAt,
      }),
    DocumentTagAttached: async (event, context) => {
      const current = await context.get<DocumentView>(KNOWLEDGE_DOCUMENTS, event.data.documentId);
      return current
        ? patchDocument(current.id, {
            tagIds: [...current.tagIds, event.data.tagId],
            lastModified: at(event),
          })
        : [];
    },
    DocumentTagDetached: async (event, context) => {
      const current = await context.get<DocumentView>(KNOWLEDGE_DOCUMENTS, event.data.documentId);
      return current
        ? patchDocument(current.id, {
            tagIds: current.tagIds.filter((tagId) => tagId !== event.data.tagId),
            lastModified: at(event),
          })
        : [];
    },
    DocumentReprocessingRequested: ({ data }) =>
      patchDocument(data.documentId, { version: data.version, status: 'Pending', error: null }),
    DocumentProcessingStarted: ({ data }) => patchDocument(data.documentId, { status: 'Processing' }),
    DocumentReady: ({ data, metadata }) =>
      patchDocument(data.documentId, {
        status: 'Ready',
        mimeType: data.mimeType,
        chunkCount: data.chunkCount,
        error: null,
        indexedAt: metadata.occurredAt,
      }),
    DocumentProcessingSkipped: ({ data }) => patchDocument(data.documentId, { status: 'Ready' }),
    DocumentFailed: ({ data }) =>
      patchDocument(data.documentId, {
        status: 'Failed',
        error: { reason: data.reason, message: data.message },
      }),
    DocumentDeleted: ({ data }) => [{ kind: 'delete', collection: KNOWLEDGE_DOCUMENTS, id: data.documentId }],
    DocumentContentPurged: null,
    DocumentTagsIndexed: null,
    KnowledgeTagCreated: (event) => {
      const { tagId: id, ...fields } = event.data;
      return [
        {
          kind: 'upsert',
          collection: KNOWLEDGE_TAGS,
          doc: { id, ...fields, createdAt: at(event), updatedAt: at(event) },
        },
      ];
    },
    KnowledgeTagRenamed: (event) =>
      patchTag(event.data.tagId, { name: event.data.name, updatedAt: at(event) }),
    KnowledgeTagRecolored: (event) =>
      patchTag(event.data.tagId, { color: event.data.color, updatedAt: at(event) }),
    KnowledgeTagDeleted: ({ data }) => [{ kind: 'delete', collection: KNOWLEDGE_TAGS, id: data.tagId }],
  },
});
