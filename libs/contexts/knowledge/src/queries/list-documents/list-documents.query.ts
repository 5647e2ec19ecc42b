// The documents an Agent can search, oldest first: its own, its Space's and Global ones (or one level), each with
// the Agent's own tags only.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { Requires, type Caller } from '#access';
import { READ_STORE, type Filter, type ReadStore } from '#read-store';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import { toDocumentDto, type DocumentDtoOf } from '../../knowledge.dto.js';
import { KNOWLEDGE_DOCUMENTS, type DocumentView } from '../../knowledge.read-model.js';
import type { DocumentListQuery } from '../../knowledge.schemas.js';
import { GLOBAL_OWNER, visibleOwners } from '../../visible-owners.js';

@Requires(KnowledgeResolver, (knowledge, { agentId }: ListDocuments) => knowledge.use(agentId))
export class ListDocuments extends Query<{ data: DocumentDtoOf[]; nextCursor: string | null }> {
  constructor(
    readonly agentId: string,
    readonly query: z.output<typeof DocumentListQuery>,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ListDocuments)
export class ListDocumentsHandler implements IQueryHandler<ListDocuments> {
  constructor(
    private readonly knowledge: KnowledgeReads,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ agentId, query }: ListDocuments) {
    const agent = await this.knowledge.agent(agentId);
    const owners =
      query.scope === 'all'
        ? visibleOwners(agent)
        : [
            query.scope === 'agent'
              ? agent.id
              : query.scope === 'space'
                ? (agent.spaceId ?? '')
                : GLOBAL_OWNER,
          ];
    const filter: Filter = {
      ownerId: { $in: owners },
      ...(query.scope === 'all' ? {} : { scope: query.scope }),
      ...(query.status ? { status: query.status } : {}),
    };
    const page = await this.readStore.reader<DocumentView>(KNOWLEDGE_DOCUMENTS).find(filter, {
      sort: { field: 'createdAt' },
      limit: query.limit,
      cursor: query.cursor ?? null,
    });
    return {
      data: (await this.knowledge.seenBy(agent, page.data)).map(toDocumentDto),
      nextCursor: page.nextCursor,
    };
  }
}
