// Several documents' original files as one zip (a document whose bytes are gone is left out).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { Requires, type Caller } from '#access';
import { DocumentsZip } from '../../documents-zip.js';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';

@Requires(KnowledgeResolver, (knowledge, { agentId }: DownloadDocuments) => knowledge.use(agentId))
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
    private readonly knowledge: KnowledgeReads,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  async execute({ agentId, documentIds }: DownloadDocuments): Promise<Buffer> {
    const agent = await this.knowledge.agent(agentId);
    const zip = new DocumentsZip();
    for (const documentId of new Set(documentIds)) {
      const document = await this.knowledge.visibleDocument(agent, documentId);
      const bytes = await this.blobs.get(document.blobId);
      if (bytes) zip.add(document.name, bytes);
    }
    return zip.archive();
  }
}
