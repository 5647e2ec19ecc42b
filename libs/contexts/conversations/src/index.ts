export * from './conversations.module.js';
export * from './conversation.events.js';
export * from './tool-call.events.js';
export * from './conversations.read-model.js';
export * from './conversation-records.js';
export { answerMovesHead } from './conversation-tree.js';
export { ConversationTurns, type TurnRequest } from './runtime/conversation-turn.js';
export type { TurnAnswer } from './runtime/turn-answer.js';
export { ConversationNotFoundError } from './conversation.decider.js';
export { ConversationDirectory, conversationHistory } from './conversation-directory.js';
export { UseConversation } from './queries/use-conversation/use-conversation.query.js';
export { ConversationResolver } from './conversation-resolver.js';
export { RecordToolCall } from './commands/record-tool-call/record-tool-call.command.js';
export type { OwnedConversation } from './owned-conversation.js';
export { ConversationReader } from './conversation.reader.js';
export { agentChatModel, agentSampling } from './agent-model.js';
export { ConversationErasureProcess } from './conversation-erasure.process.js';
export { AgentConversationsDeletionProcess } from './agent-conversations-deletion.process.js';
export * from './runtime/context-providers.js';
export type {
  ElicitationAsk,
  SamplingAnswer,
  SamplingAsk,
  ToolCallSession,
  ToolProgress,
} from './runtime/tool-call-session.js';
export { SamplingRefused } from './runtime/tool-call-session.js';
export type { ElicitationAnswer } from './runtime/tool-elicitations.js';
export * from './runtime/grounding.js';
export { answerLoop, AnswerInterrupted, type LoopResult } from './runtime/answer-loop.js';
export { SourceBook, type RetrievedSource } from './runtime/source-book.js';
export { KnowledgeContextProvider, type Retrieval } from './runtime/knowledge.provider.js';
export { promptBudget } from './runtime/turn-prompt.js';
export { knowledgeOfflineResponder } from './offline/knowledge-responder.js';
export { OFFLINE_GROUNDED_PREFIX, OFFLINE_UNGROUNDED_PREFIX } from './offline/grounded-answer.js';
export {
  FindConversations,
  FindConversationsFilter,
  type FoundConversation,
} from './queries/find-conversations/find-conversations.query.js';
