// The chunks of a document's last Ready version: what search indexes and cites (text, section path, offsets).
import { QueryHandler, Query, type IQueryHandler } from '@nestjs/cqrs';
import { Requires, type Caller } from '#access';
import { ConflictError } from '#kernel';
import type { DocumentChunk } from '../../pipeline/document-pipeline.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import { ReadyVersionReader } from '../get-document-text/get-document-text.query.js';

@Requires(KnowledgeResolver, (knowledge, { agentId }: GetDocumentChunks) => knowledge.use(agentId))
export class GetDocumentChunks extends Query<{ documentId: string; chunks: DocumentChunk[] }> {
  constructor(
    readonly agentId: string,
    readonly documentId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetDocumentChunks)
export class GetDocumentChunksHandler extends ReadyVersionReader implements IQueryHandler<GetDocumentChunks> {
  async execute({ agentId, documentId }: GetDocumentChunks) {
    const state = await this.state(agentId, documentId);
    const chunksBlobId = 'chunksBlobId' in state ? state.chunksBlobId : null;
    const json = chunksBlobId ? await this.blobs.get(chunksBlobId) : null;
    if (!json || !('version' in state))
      throw new ConflictError('document_not_ready', `document '${documentId}' has no chunks yet`);
    return { documentId, chunks: JSON.parse(json.toString('utf8')) as DocumentChunk[] };
  }
}
