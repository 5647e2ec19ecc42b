// Adding a document at the Agent, Space or Global level: its bytes go to the blob store first, then its facts to the
// log; processing (Pending → Processing → Ready/Failed) is the ingestion pipeline's work.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { newEntityId, type CommandContext } from '#eventsourcing';
import type { Principal } from '#access';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { DocumentBytes } from '../../document-bytes.js';
import { documentDecider } from '../../document.decider.js';
import { documentStreamId, type DocumentScope } from '../../document.events.js';
import { KnowledgeAccess } from '../../knowledge-access.js';

export interface NewDocument {
  readonly name: string;
  readonly scope: DocumentScope;
  readonly tagIds: readonly string[];
  readonly bytes: Buffer;
  /** As the client declared it; ingestion sniffs the real type from the bytes. */
  readonly declaredType: string | null;
}

/** `stored` settles once the bytes are checked to be in the blob store after the append (see DocumentBytes). */
export type DocumentWrite = WriteResult & { readonly stored: Promise<void> };

export class AddDocument extends Command<DocumentWrite> {
  constructor(
    readonly agentId: string,
    /** Reads the request's document: after the access check, so a caller without access learns nothing more. */
    readonly read: () => Promise<NewDocument>,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(AddDocument)
export class AddDocumentHandler implements ICommandHandler<AddDocument> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly access: KnowledgeAccess,
    private readonly bytes: DocumentBytes,
  ) {}

  async execute({ agentId, read, context, principal }: AddDocument): Promise<DocumentWrite> {
    const agent = await this.access.agent(agentId, principal);
    const document = await read();
    const ownerId = await this.access.ownerFor(agent, document.scope, principal);
    await this.access.requireTags(agent, document.tagIds);
    const content = await this.bytes.store(document.bytes, document.declaredType);
    const documentId = newEntityId(context, 'doc');
    const result = await this.aggregates.decide(
      documentStreamId(documentId),
      documentDecider,
      {
        type: 'AddDocument',
        documentId,
        name: document.name,
        scope: document.scope,
        ownerId,
        provider: 'upload',
        content,
        tagIds: document.tagIds,
      },
      context,
    );
    // Not awaited here: the sender's wait for the read models starts at once (it wakes the projectors), and the
    // controller awaits the check before it answers.
    const stored = this.bytes.keepStored(document.bytes, content);
    stored.catch(() => undefined);
    return { id: documentId, position: result.position, stored };
  }
}
