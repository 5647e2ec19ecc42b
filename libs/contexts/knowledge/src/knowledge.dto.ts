// Documents and tags as the Knowledge routes answer them (DocumentDto and TagDto in knowledge.schemas.ts).
import type { DocumentView, TagView } from './knowledge.read-model.js';

export const toDocumentDto = (view: DocumentView) => ({
  id: view.id,
  name: view.name,
  scope: view.scope,
  ownerId: view.ownerId,
  provider: view.provider,
  sourceUri: view.sourceUri ?? null,
  status: view.status,
  tags: view.tagIds,
  contentHash: view.contentHash,
  sizeBytes: view.sizeBytes,
  mimeType: view.mimeType,
  lastModified: view.lastModified,
  indexedAt: view.indexedAt ?? null,
  createdAt: view.createdAt,
  error: view.error,
});

export type DocumentDtoOf = ReturnType<typeof toDocumentDto>;

export const toTagDto = (view: TagView) => ({
  id: view.id,
  agentId: view.agentId,
  name: view.name,
  color: view.color,
  createdAt: view.createdAt,
  updatedAt: view.updatedAt,
});
