// The Conversations bounded context: the Agent runtime's conversations (turns, history, compaction, visibility,
// erasure, provenance) as command and query slices, its context providers, and the stores that keep conversations
// (the log for normal and private ones, memory for incognito ones). Its process managers run with the projectors
// (apps/projectors.ts).
import { Module, type OnModuleInit } from '@nestjs/common';
import { ModelGatewayModule } from '#model-gateway';
import { ChangeConversationController } from './commands/change-conversation/change-conversation.controller.js';
import { ChangeConversationHandler } from './commands/change-conversation/change-conversation.command.js';
import { DeleteConversationController } from './commands/delete-conversation/delete-conversation.controller.js';
import {
  DeleteAgentConversationHandler,
  DeleteConversationHandler,
} from './commands/delete-conversation/delete-conversation.command.js';
import { DeleteMessageController } from './commands/delete-message/delete-message.controller.js';
import { DeleteMessageHandler } from './commands/delete-message/delete-message.command.js';
import { SendMessageController } from './commands/send-message/send-message.controller.js';
import { SendMessageHandler } from './commands/send-message/send-message.command.js';
import { ConversationDirectory } from './conversation-directory.js';
import { IncognitoConversations } from './incognito-conversations.js';
import { GetMessagesController } from './queries/get-messages/get-messages.controller.js';
import { GetMessagesHandler } from './queries/get-messages/get-messages.query.js';
import { GetProvenanceController } from './queries/get-provenance/get-provenance.controller.js';
import { GetProvenanceHandler } from './queries/get-provenance/get-provenance.query.js';
import { ListConversationsController } from './queries/list-conversations/list-conversations.controller.js';
import { ListConversationsHandler } from './queries/list-conversations/list-conversations.query.js';
import { TurnAttachments } from './runtime/attachments.js';
import { ContextProviders } from './runtime/context-providers.js';
import { ConversationTurns } from './runtime/conversation-turn.js';
import { ConversationPlaces } from './runtime/places/conversation-places.js';
import { TurnIdempotency } from './runtime/turn-idempotency.js';
import { TurnCompaction } from './runtime/turn-compaction.js';
import { KnowledgeContextProvider } from './runtime/knowledge.provider.js';
import { StoredConversations } from './stored-conversations.js';
import { RunningTurns } from './runtime/running-turns.js';
import { StopTurnController } from './commands/stop-turn/stop-turn.controller.js';
import { StopTurnHandler } from './commands/stop-turn/stop-turn.command.js';

export const CONVERSATION_CONTROLLERS = [
  SendMessageController,
  ListConversationsController,
  GetMessagesController,
  GetProvenanceController,
  ChangeConversationController,
  DeleteConversationController,
  DeleteMessageController,
  StopTurnController,
];

export const CONVERSATION_COMMAND_HANDLERS = [
  SendMessageHandler,
  ChangeConversationHandler,
  DeleteConversationHandler,
  DeleteAgentConversationHandler,
  DeleteMessageHandler,
  StopTurnHandler,
];

export const CONVERSATION_QUERY_HANDLERS = [
  ListConversationsHandler,
  GetMessagesHandler,
  GetProvenanceHandler,
];

@Module({
  imports: [ModelGatewayModule],
  controllers: CONVERSATION_CONTROLLERS,
  providers: [
    ...CONVERSATION_COMMAND_HANDLERS,
    ...CONVERSATION_QUERY_HANDLERS,
    StoredConversations,
    IncognitoConversations,
    ConversationDirectory,
    ConversationTurns,
    ConversationPlaces,
    TurnIdempotency,
    TurnCompaction,
    TurnAttachments,
    KnowledgeContextProvider,
    ContextProviders,
    RunningTurns,
  ],
  exports: [ConversationDirectory, StoredConversations, IncognitoConversations, ContextProviders],
})
export class ConversationsModule implements OnModuleInit {
  constructor(
    private readonly contextProviders: ContextProviders,
    private readonly knowledge: KnowledgeContextProvider,
  ) {}

  /** Knowledge comes first: its sources are numbered from 1. */
  onModuleInit(): void {
    this.contextProviders.add(this.knowledge);
  }
}
