// A document's history as an ingestion log: every fact of its stream, oldest first (read from the log itself).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#event-store';
import type { Caller } from '#identity';
import type { Actor } from '#kernel';
import { documentStreamId } from '../../document.events.js';
import { KnowledgeAccess } from '../../knowledge-access.js';

interface DocumentLog {
  readonly documentId: string;
  readonly entries: { at: string; event: string; actor: Actor; details: Record<string, unknown> }[];
}

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
    private readonly access: KnowledgeAccess,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  async execute({ agentId, documentId, caller }: GetDocumentLog): Promise<DocumentLog> {
    const agent = await this.access.agent(agentId, caller);
    await this.access.visibleDocument(agent, documentId);
    const events = await this.events.readStream(documentStreamId(documentId));
    return {
      documentId,
      entries: events.map((event) => {
        const {
          documentId: _documentId,
          content: _content,
          ...details
        } = event.data as Record<string, unknown>;
        return { at: event.metadata.occurredAt, event: event.type, actor: event.metadata.actor, details };
      }),
    };
  }
}
