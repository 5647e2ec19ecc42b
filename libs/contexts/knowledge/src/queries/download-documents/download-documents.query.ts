// Several documents' original files as one zip (a document whose bytes are gone is left out).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import type { Caller } from '#access';
import { DocumentsZip } from '../../documents-zip.js';
import { KnowledgeAccess } from '../../knowledge-access.js';

export class DownloadDocuments extends Query<Buffer> {
  constructor(
    readonly agentId: string,
    readonly documentIds: readonly string[],
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(DownloadDocuments)
export class DownloadDocumentsHandler implements IQueryHandler<DownloadDocuments> {
  constructor(
    private readonly access: KnowledgeAccess,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  async execute({ agentId, documentIds, caller }: DownloadDocuments): Promise<Buffer> {
    const agent = await this.access.agent(agentId, caller);
    const zip = new DocumentsZip();
    for (const documentId of new Set(documentIds)) {
      const document = await this.access.visibleDocument(agent, documentId);
      const bytes = await this.blobs.get(document.blobId);
      if (bytes) zip.add(document.name, bytes);
    }
    return zip.archive();
  }
}
