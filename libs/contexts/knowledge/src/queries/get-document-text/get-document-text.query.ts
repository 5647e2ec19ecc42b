// The text extracted from a document's last Ready version, which search citations point into.
import { Inject, Injectable } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { Requires, type Caller } from '#access';
import { ConflictError } from '#kernel';
import { AggregateRepository } from '#eventsourcing';
import { documentDecider } from '../../document.decider.js';
import { documentStreamId } from '../../document.events.js';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';

@Requires(KnowledgeResolver, (knowledge, { agentId }: GetDocumentText) => knowledge.use(agentId))
export class GetDocumentText extends Query<string> {
  constructor(
    readonly agentId: string,
    readonly documentId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

/** The document's state as its stream folds (the read model does not keep blob ids of the extracted text). */
// Injectable so that TypeScript records its constructor's parameter types, which the handlers extending it inherit.
@Injectable()
export abstract class ReadyVersionReader {
  constructor(
    protected readonly knowledge: KnowledgeReads,
    protected readonly aggregates: AggregateRepository,
    @Inject(BLOB_STORE) protected readonly blobs: BlobStore,
  ) {}

  protected async state(agentId: string, documentId: string) {
    const agent = await this.knowledge.agent(agentId);
    await this.knowledge.visibleDocument(agent, documentId);
    return (await this.aggregates.load(documentStreamId(documentId), documentDecider)).state;
  }
}

@QueryHandler(GetDocumentText)
export class GetDocumentTextHandler extends ReadyVersionReader implements IQueryHandler<GetDocumentText> {
  async execute({ agentId, documentId }: GetDocumentText): Promise<string> {
    const state = await this.state(agentId, documentId);
    const textBlobId = 'textBlobId' in state ? state.textBlobId : null;
    const text = textBlobId ? await this.blobs.get(textBlobId) : null;
    if (!text)
      throw new ConflictError('document_not_ready', `document '${documentId}' has no extracted text yet`);
    return text.toString('utf8');
  }
}
