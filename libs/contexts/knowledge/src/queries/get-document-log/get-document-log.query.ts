// A document's history as an ingestion log: every fact of its stream, oldest first (read from the log itself),
// without other Agents' tags (tags are per Agent, also on shared documents).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#event-store';
import { Requires, type Caller } from '#access';
import type { Actor } from '#kernel';
import { documentStreamId } from '../../document.events.js';
import { tagStreamId } from '../../tag.events.js';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';

interface DocumentLog {
  readonly documentId: string;
  readonly entries: { at: string; event: string; actor: Actor; details: Record<string, unknown> }[];
}

@Requires(KnowledgeResolver, (knowledge, { agentId }: GetDocumentLog) => knowledge.use(agentId))
export class GetDocumentLog extends Query<DocumentLog> {
  constructor(
    readonly agentId: string,
    readonly documentId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetDocumentLog)
export class GetDocumentLogHandler implements IQueryHandler<GetDocumentLog> {
  constructor(
    private readonly knowledge: KnowledgeReads,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  async execute({ agentId, documentId }: GetDocumentLog): Promise<DocumentLog> {
    const agent = await this.knowledge.agent(agentId);
    await this.knowledge.visibleDocument(agent, documentId);
    const events = await this.events.readStream(documentStreamId(documentId));
    const own = await this.ownTags(agentId, events);
    return {
      documentId,
      entries: events.flatMap((event) => {
        const {
          documentId: _documentId,
          content: _content,
          ...details
        } = event.data as Record<string, unknown>;
        // Tags are per Agent: another Agent's tag on a shared document is no part of this Agent's view of it.
        if (typeof details['tagId'] === 'string' && !own.has(details['tagId'])) return [];
        if (Array.isArray(details['tagIds']))
          details['tagIds'] = (details['tagIds'] as unknown[]).filter(
            (tagId) => typeof tagId === 'string' && own.has(tagId),
          );
        return [{ at: event.metadata.occurredAt, event: event.type, actor: event.metadata.actor, details }];
      }),
    };
  }

  /**
   * The tags of the document's history that are this Agent's, deleted ones included: a tag's owner is in its own
   * stream's KnowledgeTagCreated (this route reads the log, so it reads that too).
   */
  private async ownTags(agentId: string, events: readonly { data: unknown }[]): Promise<Set<string>> {
    const mentioned = new Set<string>();
    for (const event of events) {
      const data = event.data as { tagId?: unknown; tagIds?: unknown };
      if (typeof data.tagId === 'string') mentioned.add(data.tagId);
      if (Array.isArray(data.tagIds))
        for (const tagId of data.tagIds) if (typeof tagId === 'string') mentioned.add(tagId);
    }
    const own = new Set<string>();
    for (const tagId of mentioned) {
      const [created] = await this.events.readStream(tagStreamId(tagId), { maxCount: 1 });
      if (
        created?.type === 'KnowledgeTagCreated' &&
        (created.data as { agentId?: unknown }).agentId === agentId
      )
        own.add(tagId);
    }
    return own;
  }
}
