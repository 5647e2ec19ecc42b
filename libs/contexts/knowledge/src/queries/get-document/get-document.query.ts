// One document the Agent reaches, with the Agent's own tags (never another Agent's on a shared document).
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#access';
import { KnowledgeAccess } from '../../knowledge-access.js';
import { toDocumentDto, type DocumentDtoOf } from '../../knowledge.dto.js';

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
  constructor(private readonly access: KnowledgeAccess) {}

  async execute({ agentId, documentId, caller }: GetDocument) {
    const agent = await this.access.agent(agentId, caller);
    const [document] = await this.access.seenBy(agent, [
      await this.access.visibleDocument(agent, documentId),
    ]);
    return toDocumentDto(document!);
  }
}
