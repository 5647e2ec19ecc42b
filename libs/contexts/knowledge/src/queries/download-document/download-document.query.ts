// A document's uploaded file as it was sent, with its name and sniffed type.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { Requires, type Caller } from '#access';
import { NotFoundError } from '#kernel';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';

export interface DocumentFile {
  readonly name: string;
  readonly mimeType: string | null;
  readonly bytes: Buffer;
}

@Requires(KnowledgeResolver, (knowledge, { agentId }: DownloadDocument) => knowledge.use(agentId))
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
    private readonly knowledge: KnowledgeReads,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  async execute({ agentId, documentId }: DownloadDocument): Promise<DocumentFile> {
    const agent = await this.knowledge.agent(agentId);
    const document = await this.knowledge.visibleDocument(agent, documentId);
    const bytes = await this.blobs.get(document.blobId);
    if (!bytes) throw new NotFoundError('Document content', documentId);
    return { name: document.name, mimeType: document.mimeType, bytes };
  }
}
