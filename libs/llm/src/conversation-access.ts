// Which conversation history a generate call may continue (spec: "Core API", rule 2): only a conversation of the
// requesting user on that Agent, never another user's, never one reached through a public Agent by guessing an id.
// Conversations do not exist yet, so every id is unknown and no history is ever returned; the conversations context
// will implement `historyFor` against its read model, and the generate endpoints already send what it returns.
import { Injectable } from '@nestjs/common';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { PlatformError } from '#kernel';
import type { Caller } from '#identity';
import type { AgentView } from '#agents';

export class ConversationNotFoundError extends PlatformError {
  constructor(conversationId: string) {
    super(
      'not_found',
      'conversation_not_found',
      `Conversation '${conversationId}' was not found for this user and Agent`,
      'conversationId',
    );
  }
}

@Injectable()
export class ConversationAccess {
  /** The messages of the caller's conversation with this Agent, oldest first; 404 for any id that is not theirs. */
  historyFor(
    _caller: Caller,
    _agent: AgentView,
    conversationId: string,
  ): Promise<readonly ChatCompletionMessageParam[]> {
    return Promise.reject(new ConversationNotFoundError(conversationId));
  }
}
