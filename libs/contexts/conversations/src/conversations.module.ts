// The Conversations bounded context: the Agent runtime's conversations (turns, history, compaction, visibility,
// erasure, provenance) as command and query slices, its context providers, and where conversations are kept (the log
// for normal and private ones: written by ConversationRepository, read by ConversationReader; memory for incognito
// ones). Its process managers run with the projectors (apps/projectors.ts).
//
// Every write is a command with its handler (commands/<verb-noun>/), the only code that runs the repository's
// decide methods, the turn's own writes included (start-turn, record-answer, compact-conversation: the turn sends
// them on the CommandBus). The one documented exception: a turn itself (POST …/conversation) is a direct call from
// its controller to ConversationTurns, not a command, because it carries the client's AbortSignal and the stream's
// emitter and runs as long as the answer does.
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
import { SwitchBranchController } from './commands/switch-branch/switch-branch.controller.js';
import { SwitchBranchHandler } from './commands/switch-branch/switch-branch.command.js';
import { ConversationTurnController } from './commands/conversation-turn/conversation-turn.controller.js';
import { StartTurnHandler } from './commands/start-turn/start-turn.command.js';
import { RecordAnswerHandler } from './commands/record-answer/record-answer.command.js';
import { CompactConversationHandler } from './commands/compact-conversation/compact-conversation.command.js';
import { ConversationReader } from './conversation.reader.js';
import { ConversationWrites } from './conversation-writes.js';
import { OpenedHistory } from './opened-history.js';
import { ConversationRepository } from './conversation.repository.js';
import { ConversationDirectory } from './conversation-directory.js';
import { ConversationResolver } from './conversation-resolver.js';
import { UseConversationHandler } from './queries/use-conversation/use-conversation.query.js';
import { IncognitoConversations } from './incognito-conversations.js';
import { GetConversationHandler } from './queries/get-conversation/get-conversation.query.js';
import { GetMessagesController } from './queries/get-messages/get-messages.controller.js';
import { GetMessagesHandler } from './queries/get-messages/get-messages.query.js';
import { GetProvenanceController } from './queries/get-provenance/get-provenance.controller.js';
import { GetProvenanceHandler } from './queries/get-provenance/get-provenance.query.js';
import { ListConversationsController } from './queries/list-conversations/list-conversations.controller.js';
import { ListConversationsHandler } from './queries/list-conversations/list-conversations.query.js';
import { FindConversationsHandler } from './queries/find-conversations/find-conversations.query.js';
import { TurnAttachments } from './runtime/attachments.js';
import { ContextProviders } from './runtime/context-providers.js';
import { ConversationTurns } from './runtime/conversation-turn.js';
import { ConversationPlaces } from './runtime/places/conversation-places.js';
import { TurnIdempotency } from './runtime/turn-idempotency.js';
import { TurnCompaction } from './runtime/turn-compaction.js';
import { LibraryPrompts } from './runtime/library-prompt.js';
import { KnowledgeContextProvider } from './runtime/knowledge.provider.js';
import { RunningTurns } from './runtime/running-turns.js';
import { StopTurnController } from './commands/stop-turn/stop-turn.controller.js';
import { StopTurnHandler } from './commands/stop-turn/stop-turn.command.js';
import { DecideToolCallController } from './commands/decide-tool-call/decide-tool-call.controller.js';
import { DecideToolCallHandler } from './commands/decide-tool-call/decide-tool-call.command.js';
import { RecordToolCallHandler } from './commands/record-tool-call/record-tool-call.command.js';
import { ListWaitingToolCallsController } from './queries/list-waiting-tool-calls/list-waiting-tool-calls.controller.js';
import { ListWaitingToolCallsHandler } from './queries/list-waiting-tool-calls/list-waiting-tool-calls.query.js';
import { ToolApprovals } from './runtime/tool-approvals.js';
import { ToolElicitations } from './runtime/tool-elicitations.js';
import { AnswerElicitationController } from './commands/answer-elicitation/answer-elicitation.controller.js';
import { AnswerElicitationHandler } from './commands/answer-elicitation/answer-elicitation.command.js';
import { ToolCallRepository } from './tool-call.repository.js';

export const CONVERSATION_CONTROLLERS = [
  ConversationTurnController,
  ListConversationsController,
  GetMessagesController,
  GetProvenanceController,
  ChangeConversationController,
  DeleteConversationController,
  DeleteMessageController,
  SwitchBranchController,
  StopTurnController,
  DecideToolCallController,
  ListWaitingToolCallsController,
  AnswerElicitationController,
];

export const CONVERSATION_COMMAND_HANDLERS = [
  StartTurnHandler,
  RecordAnswerHandler,
  CompactConversationHandler,
  ChangeConversationHandler,
  DeleteConversationHandler,
  DeleteAgentConversationHandler,
  DeleteMessageHandler,
  SwitchBranchHandler,
  StopTurnHandler,
  DecideToolCallHandler,
  ListWaitingToolCallsHandler,
  RecordToolCallHandler,
  AnswerElicitationHandler,
];

export const CONVERSATION_QUERY_HANDLERS = [
  ListConversationsHandler,
  GetConversationHandler,
  FindConversationsHandler,
  GetMessagesHandler,
  GetProvenanceHandler,
  UseConversationHandler,
];

@Module({
  imports: [ModelGatewayModule],
  controllers: CONVERSATION_CONTROLLERS,
  providers: [
    ...CONVERSATION_COMMAND_HANDLERS,
    ...CONVERSATION_QUERY_HANDLERS,
    ConversationRepository,
    ToolCallRepository,
    ConversationReader,
    ConversationWrites,
    OpenedHistory,
    IncognitoConversations,
    ConversationDirectory,
    ConversationResolver,
    ConversationTurns,
    ConversationPlaces,
    TurnIdempotency,
    TurnCompaction,
    LibraryPrompts,
    TurnAttachments,
    KnowledgeContextProvider,
    ContextProviders,
    RunningTurns,
    ToolApprovals,
    ToolElicitations,
  ],
  exports: [
    ConversationTurns,
    ConversationDirectory,
    ConversationReader,
    IncognitoConversations,
    ContextProviders,
    KnowledgeContextProvider,
  ],
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
