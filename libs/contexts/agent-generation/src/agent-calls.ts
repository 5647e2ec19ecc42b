// What a model call made as an Agent needs once the request is accepted: the Agent (the UseAgent query, which the gate
// asks `agent.use` of), the model (the requested one or the Agent's, a configured chat model either way), the
// conversation's history and who pays (the call scope). Shared by the generate handlers. A standalone App's bridge (no
// Agent) calls with the instance-wide default models, no system prompt and no conversation (`agentId` null): only the
// standalone bridge's routes send none, and their rows ask the policy's `app.standalone` (Apps only).
import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { UseAgent, type AgentView } from '#agents';
import { agentChatModel } from '#conversations';
import { callerScope, ModelGateway, type CallScope } from '#model-gateway';
import type { Caller } from '#access';
import { PlatformError, ValidationError } from '#kernel';
import { ModelRegistry, type ChatRequest, type ModelConfig, type TokenUsage } from '#model-providers';
import { buildChatRequest, type AgentSettingsForChat } from './chat-request.js';
import { ConversationHistory } from './conversation-history.js';

export interface AgentCall {
  /** The Agent's settings the request carries; none (no prompt, no sampling) on a standalone bridge. */
  readonly agent: AgentSettingsForChat;
  readonly model: ModelConfig;
  readonly history: readonly ChatCompletionMessageParam[];
  readonly scope: CallScope;
}

export const toUsage = (usage: TokenUsage) => ({
  inputTokens: usage.inputTokens,
  cachedInputTokens: usage.cachedInputTokens,
  outputTokens: usage.outputTokens,
});

export const scopeOf = (caller: Caller, agentId: string | null): CallScope =>
  callerScope(caller, 'core', agentId);

const NO_AGENT: AgentSettingsForChat = { systemPrompt: '', temperature: null, topP: null, topK: null };

@Injectable()
export class AgentCalls {
  constructor(
    readonly gateway: ModelGateway,
    private readonly models: ModelRegistry,
    private readonly conversations: ConversationHistory,
    private readonly queries: QueryBus,
  ) {}

  async prepare(
    agentId: string | null,
    body: { readonly model?: string | undefined; readonly conversationId?: string | undefined },
    caller: Caller,
  ): Promise<AgentCall> {
    if (agentId === null) {
      if (body.conversationId !== undefined)
        throw new ValidationError(
          'conversation_needs_agent',
          'a standalone bridge has no conversations: send no conversationId',
          'conversationId',
        );
      const model =
        body.model !== undefined
          ? this.gateway.resolve(body.model, 'chat')
          : this.defaultModel('chat', 'chat');
      return { agent: NO_AGENT, model, history: [], scope: scopeOf(caller, null) };
    }
    const agent = await this.agentToUse(agentId, caller);
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
    return this.defaultModel('image', 'image');
  }

  /** The instance's default model of a kind (404 `model_not_found` when it has none). */
  defaultModel(kind: 'chat' | 'image' | 'speech' | 'transcription', what: string): ModelConfig {
    const model = this.models.defaultModel(kind);
    if (!model)
      throw new PlatformError('not_found', 'model_not_found', `this instance has no default ${what} model`);
    return model;
  }

  /** The Agent a call is made for, when the caller may use it; none on a standalone bridge (its row asked). */
  async authorizeAgent(agentId: string | null, caller: Caller): Promise<void> {
    if (agentId !== null) await this.agentToUse(agentId, caller);
  }

  private agentToUse(agentId: string, caller: Caller): Promise<AgentView> {
    return this.queries.execute(new UseAgent(agentId, caller));
  }
}
