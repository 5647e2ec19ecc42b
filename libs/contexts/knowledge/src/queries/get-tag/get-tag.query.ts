// One of an Agent's tags (what a tag write answers).
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#access';
import { KnowledgeAccess } from '../../knowledge-access.js';
import { toTagDto } from '../../knowledge.dto.js';

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
  constructor(private readonly access: KnowledgeAccess) {}

  async execute({ agentId, tagId, caller }: GetTag) {
    await this.access.agent(agentId, caller);
    return toTagDto(await this.access.agentTag(agentId, tagId));
  }
}
