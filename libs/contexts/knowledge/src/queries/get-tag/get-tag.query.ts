// One of an Agent's tags (what a tag write answers).
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { Requires, type Caller } from '#access';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import { toTagDto } from '../../knowledge.dto.js';

@Requires(KnowledgeResolver, (knowledge, { agentId }: GetTag) => knowledge.use(agentId))
export class GetTag extends Query<ReturnType<typeof toTagDto>> {
  constructor(
    readonly agentId: string,
    readonly tagId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetTag)
export class GetTagHandler implements IQueryHandler<GetTag> {
  constructor(private readonly knowledge: KnowledgeReads) {}

  async execute({ agentId, tagId }: GetTag) {
    await this.knowledge.agent(agentId);
    return toTagDto(await this.knowledge.agentTag(agentId, tagId));
  }
}
