// The single-document commands (delete, attach or detach a tag, re-process) act on a document the principal may
// change through one of its Agents: Agent-level documents whoever uses the Agent, Space-level ones its managers,
// Global ones admins only. The routes and the bulk route send them through the caller's Agent; the process managers
// send them as the platform, through no Agent (KnowledgeAccess.actingAgent).
import { Injectable } from '@nestjs/common';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import type { Principal } from '#access';
import { documentDecider, type DocumentCommand } from '../document.decider.js';
import { documentStreamId } from '../document.events.js';
import { KnowledgeAccess } from '../knowledge-access.js';

export type DocumentAction = Extract<
  DocumentCommand,
  { type: 'DeleteDocument' | 'AttachDocumentTag' | 'DetachDocumentTag' | 'RequestReprocessing' }
>;

/** What every single-document command carries besides its own fields. */
export interface DocumentActionCommand {
  /** The Agent the principal acts through; null for the platform. */
  readonly agentId: string | null;
  readonly context: CommandContext;
  readonly principal: Principal;
}

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
    { agentId, context, principal }: DocumentActionCommand,
  ): Promise<WriteResult> {
    const agent = await this.access.actingAgent(agentId, principal);
    if (agent) {
      await this.access.writableDocument(agent, action.documentId, principal);
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
