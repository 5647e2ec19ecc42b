// A document's uploaded file as it was sent, with its name and sniffed type.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import type { Caller } from '#access';
import { NotFoundError } from '#kernel';
import { KnowledgeAccess } from '../../knowledge-access.js';

export interface DocumentFile {
  readonly name: string;
  readonly mimeType: string | null;
  readonly bytes: Buffer;
}

export class DownloadDocument extends Query<DocumentFile> {
  constructor(
    readonly agentId: string,
    readonly documentId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(DownloadDocument)
export class DownloadDocumentHandler implements IQueryHandler<DownloadDocument> {
  constructor(
    private readonly access: KnowledgeAccess,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  async execute({ agentId, documentId, caller }: DownloadDocument): Promise<DocumentFile> {
    const agent = await this.access.agent(agentId, caller);
    const document = await this.access.visibleDocument(agent, documentId);
    const bytes = await this.blobs.get(document.blobId);
    if (!bytes) throw new NotFoundError('Document content', documentId);
    return { name: document.name, mimeType: document.mimeType, bytes };
  }
}
