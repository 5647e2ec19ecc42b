// Which conversation history a generate call may continue (spec: "Core API", rule 2): only a conversation of the
// requesting user on that Agent, through the same access check as the conversation routes; another user's id, an
// unknown one, or any id guessed against a public Agent is 404 `conversation_not_found` and returns no history. The
// history is the model's view of the conversation (compacted, deleted messages absent), read-only: the generate
// endpoints do not append to it (POST /llm/{agentId}/conversation adds turns).
import { Injectable } from '@nestjs/common';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { AgentView } from '#agents';
import { ConversationDirectory, conversationHistory } from '#conversations';
import type { Caller } from '#access';

@Injectable()
export class ConversationHistory {
  constructor(private readonly directory: ConversationDirectory) {}

  /** The messages of the caller's conversation with this Agent, oldest first; 404 for any id that is not theirs. */
  async historyFor(
    caller: Caller,
    agent: AgentView,
    conversationId: string,
  ): Promise<readonly ChatCompletionMessageParam[]> {
    const owned = await this.directory.owned(agent.id, conversationId, caller);
    return conversationHistory(owned);
  }
}
