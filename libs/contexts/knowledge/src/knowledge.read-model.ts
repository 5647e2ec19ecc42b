// The Knowledge read models: documents (what the document lists show, with status, tags and the last failure) and
// tags. A document's content is not here: it stays in the blob store. Built by projections/knowledge.
import { defineReadModel } from '#eventsourcing';
import type { DocumentProvider, DocumentScope, DocumentStatus } from './document.events.js';

export interface DocumentView {
  readonly id: string;
  readonly name: string;
  readonly scope: DocumentScope;
  readonly ownerId: string;
  readonly provider: DocumentProvider;
  /** A synced document's resource at its App (absent for uploads). */
  readonly sourceUri?: string;
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
  /** When its current content was last indexed (it became Ready); null before it first did. */
  readonly indexedAt: string | null;
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

export const KNOWLEDGE_PROJECTION = 'knowledge';

export const DOCUMENTS_READ_MODEL = defineReadModel<DocumentView>({
  name: KNOWLEDGE_DOCUMENTS,
  projection: KNOWLEDGE_PROJECTION,
  indexes: [
    { fields: ['ownerId', 'createdAt'] },
    { fields: ['scope'] },
    { fields: ['status'] },
    { fields: ['blobId'] },
  ],
});

export const TAGS_READ_MODEL = defineReadModel<TagView>({
  name: KNOWLEDGE_TAGS,
  projection: KNOWLEDGE_PROJECTION,
  indexes: [{ fields: ['agentId', 'createdAt'] }],
});
