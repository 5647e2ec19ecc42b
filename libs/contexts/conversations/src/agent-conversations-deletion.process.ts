// Process manager: deleting an Agent deletes its conversations (and deleting a Space cascades through its Agents'
// AgentDeleted): an owner cascade Agent → conversations, one state document per conversation; a conversation started
// on an Agent already deleted is deleted as soon as it appears. Commands carry ids derived from their cause, so a
// replay appends nothing. A conversation its user deleted stays listed here: deleting it again is a no-op. It acts as
// the platform (its principal names this process).
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { AgentEvent } from '#agents';
import type { PlatformPrincipal } from '#access';
import { causedBy, defineProcess, ownerCascade, type EventHandlers } from '#eventsourcing';
import { DeleteAgentConversation } from './commands/delete-conversation/delete-conversation.command.js';
import type { ConversationEvent } from './conversation.events.js';

const NAME = 'agent-conversations-deletion-process';
const PLATFORM: PlatformPrincipal = { kind: 'platform', process: NAME };

type Read = Extract<ConversationEvent | AgentEvent, { type: 'ConversationStarted' | 'AgentDeleted' }>;

const agentConversations = ownerCascade<Read>({
  state: 'pm_agent_conversations',
  on: {
    ConversationStarted: ({ data }) => ({ add: data.conversationId, to: data.agentId }),
    AgentDeleted: ({ data }) => ({ ownerGone: data.agentId }),
  },
});

@Injectable()
export class AgentConversationsDeletionProcess extends defineProcess<Read>({
  name: NAME,
  version: 2,
  collections: agentConversations.collections,
}) {
  constructor(private readonly bus: CommandBus) {
    super();
  }

  readonly on: EventHandlers<Read> = agentConversations.handlers(async (conversation, cause) => {
    await this.bus.execute(
      new DeleteAgentConversation(conversation.id, causedBy(cause, conversation.id), PLATFORM),
    );
  });
}
