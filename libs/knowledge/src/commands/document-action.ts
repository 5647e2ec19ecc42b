// The single-document commands (delete, attach or detach a tag, re-process) act on a document the caller may change:
// its Agent granted, Global ones admins only. The routes, the bulk route and the process managers (for the system,
// without a caller) send them.
import { Injectable } from '@nestjs/common';
import type { CommandContext } from '#eventsourcing';
import type { Caller } from '#identity';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { documentDecider, type DocumentCommand } from '../document.decider.js';
import { documentStreamId } from '../document.events.js';
import { KnowledgeAccess } from '../knowledge-access.js';

export type DocumentAction = Extract<
  DocumentCommand,
  { type: 'DeleteDocument' | 'AttachDocumentTag' | 'DetachDocumentTag' | 'RequestReprocessing' }
>;

/** Who acts: a caller through one of its Agents, or null when the system acts (a cascade). */
export type ActingCaller = { readonly caller: Caller; readonly agentId: string } | null;

/** The handlers of the single-document commands: the access checks, then the decider. */
// Injectable so that TypeScript records its constructor's parameter types, which the handlers extending it inherit.
@Injectable()
export abstract class DocumentActionHandler {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly access: KnowledgeAccess,
  ) {}

  protected async act(
    action: DocumentAction,
    context: CommandContext,
    by: ActingCaller,
  ): Promise<WriteResult> {
    if (by) {
      const agent = await this.access.agent(by.agentId, by.caller);
      await this.access.writableDocument(agent, action.documentId, by.caller);
      // Only the Agent's own tags: another Agent's tag on a shared document is not this one's to remove.
      if (action.type === 'AttachDocumentTag' || action.type === 'DetachDocumentTag')
        await this.access.requireTags(agent, [action.tagId]);
    }
    const result = await this.aggregates.decide(
      documentStreamId(action.documentId),
      documentDecider,
      action,
      context,
    );
    return { id: action.documentId, position: result.position };
  }
}
