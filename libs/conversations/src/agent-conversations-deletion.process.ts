// Process manager: deleting an Agent deletes its conversations (and deleting a Space cascades through its Agents'
// AgentDeleted). It keeps which conversations each Agent has in its own checkpointed state; a conversation started
// on an Agent already deleted is deleted as soon as it appears. Commands carry ids derived from their cause, so a
// replay appends nothing. A conversation its user deleted stays listed here: deleting it again is a no-op.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { AgentEvent } from '#agents';
import type { EventEnvelope } from '#kernel';
import { causedBy, eventHandlers, type ProjectionContext, type Projector } from '#eventsourcing';
import type { WriteOp } from '#read-store';
import { DeleteAgentConversation } from './commands/delete-conversation/delete-conversation.command.js';
import type { ConversationEvent } from './conversation.events.js';

interface AgentConversations {
  readonly id: string;
  readonly conversationIds: readonly string[];
  readonly deleted: boolean;
}

const AGENT_CONVERSATIONS = 'pm_agent_conversations';

type Read = Extract<ConversationEvent | AgentEvent, { type: 'ConversationStarted' | 'AgentDeleted' }>;

@Injectable()
export class AgentConversationsDeletionProcess implements Projector {
  readonly name = 'agent-conversations-deletion-process';
  readonly version = 1;
  readonly collections = [{ name: AGENT_CONVERSATIONS }];

  constructor(private readonly bus: CommandBus) {}

  private readonly handlers = eventHandlers<Read>({
    ConversationStarted: async (event, context) => {
      const agent = await this.agent(context, event.data.agentId);
      if (agent.deleted) {
        await this.delete(event.data.conversationId, event);
        return [];
      }
      return [
        this.save({
          ...agent,
          conversationIds: [
            ...agent.conversationIds.filter((id) => id !== event.data.conversationId),
            event.data.conversationId,
          ],
        }),
      ];
    },
    AgentDeleted: async (event, context) => {
      const agent = await this.agent(context, event.data.agentId);
      for (const conversationId of agent.conversationIds) await this.delete(conversationId, event);
      return [this.save({ id: agent.id, conversationIds: [], deleted: true })];
    },
  });
  readonly eventTypes = this.handlers.eventTypes;

  project(event: EventEnvelope, context: ProjectionContext) {
    return this.handlers.project(event, context);
  }

  private async agent(context: ProjectionContext, agentId: string): Promise<AgentConversations> {
    return (
      (await context.get<AgentConversations>(AGENT_CONVERSATIONS, agentId)) ?? {
        id: agentId,
        conversationIds: [],
        deleted: false,
      }
    );
  }

  private save(doc: AgentConversations): WriteOp {
    return { kind: 'upsert', collection: AGENT_CONVERSATIONS, doc: { ...doc } };
  }

  private delete(conversationId: string, cause: EventEnvelope): Promise<void> {
    return this.bus.execute(new DeleteAgentConversation(conversationId, causedBy(cause, conversationId)));
  }
}
