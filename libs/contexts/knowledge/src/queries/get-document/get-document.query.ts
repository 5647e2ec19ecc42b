// One document the Agent reaches, with the Agent's own tags (never another Agent's on a shared document).
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { Requires, type Caller } from '#access';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import { toDocumentDto, type DocumentDtoOf } from '../../knowledge.dto.js';

@Requires(KnowledgeResolver, (knowledge, { agentId }: GetDocument) => knowledge.use(agentId))
export class GetDocument extends Query<DocumentDtoOf> {
  constructor(
    readonly agentId: string,
    readonly documentId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetDocument)
export class GetDocumentHandler implements IQueryHandler<GetDocument> {
  constructor(private readonly knowledge: KnowledgeReads) {}

  async execute({ agentId, documentId }: GetDocument) {
    const agent = await this.knowledge.agent(agentId);
    const [document] = await this.knowledge.seenBy(agent, [
      await this.knowledge.visibleDocument(agent, documentId),
    ]);
    return toDocumentDto(document!);
  }
}
