// An Agent's tags, oldest first.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { Requires, type Caller } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import { toTagDto } from '../../knowledge.dto.js';
import { KNOWLEDGE_TAGS, type TagView } from '../../knowledge.read-model.js';

@Requires(KnowledgeResolver, (knowledge, { agentId }: ListTags) => knowledge.use(agentId))
export class ListTags extends Query<{ data: ReturnType<typeof toTagDto>[]; nextCursor: null }> {
  constructor(
    readonly agentId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ListTags)
export class ListTagsHandler implements IQueryHandler<ListTags> {
  constructor(
    private readonly knowledge: KnowledgeReads,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ agentId }: ListTags) {
    await this.knowledge.agent(agentId);
    const page = await this.readStore
      .reader<TagView>(KNOWLEDGE_TAGS)
      .find({ agentId }, { sort: { field: 'createdAt' }, limit: 1000 });
    return { data: page.data.map(toTagDto), nextCursor: null };
  }
}
