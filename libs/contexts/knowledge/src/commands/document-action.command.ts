// The single-document commands (delete, attach or detach a tag, re-process) act on a document the principal may
// change through one of its Agents: Agent-level documents whoever uses the Agent, Space-level ones its managers,
// Global ones admins only. The routes and the bulk route send them through the caller's Agent; the process managers
// send them as the platform, through no Agent (actingAgentId). The gate asks (KnowledgeResolver.acting).
import { Injectable } from '@nestjs/common';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import type { Principal } from '#access';
import { documentDecider, type DocumentCommand } from '../document.decider.js';
import { documentStreamId } from '../document.events.js';
import { KnowledgeReads } from '../knowledge-reads.js';
import { actingAgentId, KnowledgeResolver } from '../knowledge-resolver.js';

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

/** What the gate asks of a single-document command: the write through its Agent, or the platform's. */
export const documentActionAsks = (
  knowledge: KnowledgeResolver,
  { agentId, documentId, principal }: DocumentActionCommand & { readonly documentId: string },
) => knowledge.acting(agentId, principal, (through) => knowledge.change(through, documentId));

/** The handlers of the single-document commands: the document (404) and tag reads, then the decider. */
// Injectable so that TypeScript records its constructor's parameter types, which the handlers extending it inherit.
@Injectable()
export abstract class DocumentActionHandler {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly knowledge: KnowledgeReads,
  ) {}

  protected async act(
    action: DocumentAction,
    { agentId, context, principal }: DocumentActionCommand,
  ): Promise<WriteResult> {
    const through = actingAgentId(agentId, principal);
    if (through !== null) {
      const agent = await this.knowledge.agent(through);
      await this.knowledge.visibleDocument(agent, action.documentId);
      // Only the Agent's own tags: another Agent's tag on a shared document is not this one's to remove.
      if (action.type === 'AttachDocumentTag' || action.type === 'DetachDocumentTag')
        await this.knowledge.requireTags(agent, [action.tagId]);
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
