// Time travel for Knowledge (GET …/documents?asOf= and GET …/documents/{documentId}?asOf=): the Agent's Knowledge set
// as it was at a time, and one document's metadata then, folded from the log (knowledge-as-of.ts). The caller must
// use the Agent now (the policy asked as for the live reads); what the Agent reached is judged with its Space then.
// 404 when the Agent or the document did not exist then (or was deleted by then).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { agentAsOf } from '#agents';
import { Requires, type Caller } from '#access';
import { NotFoundError } from '#kernel';
import { EVENT_STORE, type EventStore } from '#event-store';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import { documentAsOf, knowledgeSetAsOf } from '../../knowledge-as-of.js';
import { toDocumentDto, type DocumentDtoOf } from '../../knowledge.dto.js';
import type { DocumentListQuery } from '../../knowledge.schemas.js';
import { visibleOwners } from '../../visible-owners.js';

@Requires(KnowledgeResolver, (knowledge, { agentId }: ListDocumentsAsOf) => knowledge.use(agentId))
export class ListDocumentsAsOf extends Query<{ data: DocumentDtoOf[]; nextCursor: null }> {
  constructor(
    readonly agentId: string,
    readonly query: z.output<typeof DocumentListQuery>,
    readonly caller: Caller,
  ) {
    super();
  }
}

@Requires(KnowledgeResolver, (knowledge, { agentId }: GetDocumentAsOf) => knowledge.use(agentId))
export class GetDocumentAsOf extends Query<DocumentDtoOf> {
  constructor(
    readonly agentId: string,
    readonly documentId: string,
    readonly asOf: Date,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ListDocumentsAsOf)
export class ListDocumentsAsOfHandler implements IQueryHandler<ListDocumentsAsOf> {
  constructor(
    private readonly knowledge: KnowledgeReads,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
  ) {}

  async execute({ agentId, query }: ListDocumentsAsOf) {
    const agent = await this.knowledge.agent(agentId);
    const asOf = new Date(query.asOf!);
    const then = await agentAsOf(this.eventStore, agent.id, asOf);
    if (!then) throw new NotFoundError('Agent', agentId);
    const documents = (await knowledgeSetAsOf(this.eventStore, then, asOf)).filter(
      (document) =>
        (query.scope === 'all' || document.scope === query.scope) &&
        (!query.status || document.status === query.status),
    );
    return { data: (await this.knowledge.seenBy(agent, documents)).map(toDocumentDto), nextCursor: null };
  }
}

@QueryHandler(GetDocumentAsOf)
export class GetDocumentAsOfHandler implements IQueryHandler<GetDocumentAsOf> {
  constructor(
    private readonly knowledge: KnowledgeReads,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
  ) {}

  async execute({ agentId, documentId, asOf }: GetDocumentAsOf) {
    const agent = await this.knowledge.agent(agentId);
    const then = (await agentAsOf(this.eventStore, agent.id, asOf)) ?? agent;
    const document = await documentAsOf(this.eventStore, documentId, asOf);
    if (!document || !visibleOwners(then).includes(document.ownerId))
      throw new NotFoundError('Document', documentId);
    const [seen] = await this.knowledge.seenBy(agent, [document]);
    return toDocumentDto(seen!);
  }
}
