// The documents an Agent can search, oldest first: its own, its Space's and Global ones (or one level), each with
// the Agent's own tags only.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { Caller } from '#access';
import { READ_STORE, type Filter, type ReadStore } from '#read-store';
import { KnowledgeAccess } from '../../knowledge-access.js';
import { toDocumentDto, type DocumentDtoOf } from '../../knowledge.dto.js';
import { KNOWLEDGE_DOCUMENTS, type DocumentView } from '../../knowledge.read-model.js';
import type { DocumentListQuery } from '../../knowledge.schemas.js';
import { GLOBAL_OWNER, visibleOwners } from '../../visible-owners.js';

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
    private readonly access: KnowledgeAccess,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ agentId, query, caller }: ListDocuments) {
    const agent = await this.access.agent(agentId, caller);
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
      data: (await this.access.seenBy(agent, page.data)).map(toDocumentDto),
      nextCursor: page.nextCursor,
    };
  }
}
