// Adding a document at the Agent, Space or Global level: its bytes go to the blob store first, then its facts to the
// log; processing (Pending → Processing → Ready/Failed) is the ingestion pipeline's work. Two messages, so that the
// gate asks twice: about the Agent before the request is read (a principal out of its reach learns nothing more, and
// no upload is read for it), then about the scope the request names.
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { newEntityId, type CommandContext } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { DocumentBytes } from '../../document-bytes.js';
import { documentDecider } from '../../document.decider.js';
import { documentStreamId, type DocumentProvider, type DocumentScope } from '../../document.events.js';
import { KnowledgeReads, ownerFor } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';

export interface NewDocument {
  readonly name: string;
  readonly scope: DocumentScope;
  readonly tagIds: readonly string[];
  readonly bytes: Buffer;
  /** As the client declared it; ingestion sniffs the real type from the bytes. */
  readonly declaredType: string | null;
  /** Where it comes from: `upload` unless it is an App's resource synced into the Knowledge. */
  readonly provider?: DocumentProvider;
  readonly sourceUri?: string;
}

/** `stored` settles once the bytes are checked to be in the blob store after the append (see DocumentBytes). */
export type DocumentWrite = WriteResult & { readonly stored: Promise<void> };

@Requires(KnowledgeResolver, (knowledge, { agentId }: AddDocument) => knowledge.use(agentId))
export class AddDocument extends Command<DocumentWrite> {
  constructor(
    readonly agentId: string,
    /** Reads the request's document: after the gate, so a caller without access learns nothing more. */
    readonly read: () => Promise<NewDocument>,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

/** AddDocument once its request is read: the scope it names is what the gate asks about. */
@Requires(KnowledgeResolver, (knowledge, { agentId, document }: AddReadDocument) =>
  knowledge.add(agentId, document.scope),
)
export class AddReadDocument extends Command<DocumentWrite> {
  constructor(
    readonly agentId: string,
    readonly document: NewDocument,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(AddDocument)
export class AddDocumentHandler implements ICommandHandler<AddDocument> {
  constructor(private readonly commands: CommandBus) {}

  async execute({ agentId, read, context, principal }: AddDocument): Promise<DocumentWrite> {
    return this.commands.execute(new AddReadDocument(agentId, await read(), context, principal));
  }
}

@CommandHandler(AddReadDocument)
export class AddReadDocumentHandler implements ICommandHandler<AddReadDocument> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly knowledge: KnowledgeReads,
    private readonly bytes: DocumentBytes,
  ) {}

  async execute({ agentId, document, context }: AddReadDocument): Promise<DocumentWrite> {
    const agent = await this.knowledge.agent(agentId);
    const ownerId = ownerFor(agent, document.scope);
    await this.knowledge.requireTags(agent, document.tagIds);
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
        provider: document.provider ?? 'upload',
        content,
        tagIds: document.tagIds,
        ...(document.sourceUri !== undefined ? { sourceUri: document.sourceUri } : {}),
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
