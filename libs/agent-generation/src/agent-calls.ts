// What a model call made as an Agent needs once the request is accepted: the Agent (the caller must be granted it),
// the model (the requested one or the Agent's, a configured chat model either way), the conversation's history and
// who pays (the call scope). Shared by the generate handlers.
import { Inject, Injectable } from '@nestjs/common';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { accessibleAgent, type AgentView } from '#agents';
import { agentChatModel } from '#conversations';
import { callerScope, ModelGateway, type CallScope } from '#model-gateway';
import type { Caller } from '#identity';
import { PlatformError } from '#kernel';
import { ModelRegistry, type ChatRequest, type ModelConfig, type TokenUsage } from '#model-providers';
import { READ_STORE, type ReadStore } from '#read-store';
import { buildChatRequest } from './chat-request.js';
import { ConversationAccess } from './conversation-access.js';

export interface AgentCall {
  readonly agent: AgentView;
  readonly model: ModelConfig;
  readonly history: readonly ChatCompletionMessageParam[];
  readonly scope: CallScope;
}

export const toUsage = (usage: TokenUsage) => ({
  inputTokens: usage.inputTokens,
  cachedInputTokens: usage.cachedInputTokens,
  outputTokens: usage.outputTokens,
});

export const scopeOf = (caller: Caller, agentId: string): CallScope => callerScope(caller, 'core', agentId);

@Injectable()
export class AgentCalls {
  constructor(
    readonly gateway: ModelGateway,
    private readonly models: ModelRegistry,
    private readonly conversations: ConversationAccess,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async prepare(
    agentId: string,
    body: { readonly model?: string | undefined; readonly conversationId?: string | undefined },
    caller: Caller,
  ): Promise<AgentCall> {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    const history = body.conversationId
      ? await this.conversations.historyFor(caller, agent, body.conversationId)
      : [];
    return { agent, model: this.chatModel(agent, body.model), history, scope: scopeOf(caller, agentId) };
  }

  chatRequest(
    call: AgentCall,
    body: { readonly messages: readonly unknown[]; readonly maxTokens?: number | undefined },
    responseFormat?: ChatRequest['response_format'],
  ): ChatRequest {
    return buildChatRequest({
      agent: call.agent,
      history: call.history,
      // The schema checked roles and fields; the provider types are the chat-completions ones it mirrors.
      messages: body.messages as ChatCompletionMessageParam[],
      maxTokens: body.maxTokens,
      responseFormat,
    });
  }

  /** The requested model, or the Agent's; either must be a chat model configured on this instance. */
  chatModel(agent: AgentView, requested: string | undefined): ModelConfig {
    return agentChatModel(this.gateway, agent, requested);
  }

  defaultImageModel(): ModelConfig {
    const model = this.models.defaultModel('image');
    if (!model)
      throw new PlatformError('not_found', 'model_not_found', 'this instance has no default image model');
    return model;
  }
}
