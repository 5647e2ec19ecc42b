// The rule a write on an Agent checks outside the Agent's own stream: which model it may use. The command handlers
// apply it before the decider runs (which Space it may go into is a question of access: AgentResolver's).
import { Injectable } from '@nestjs/common';
import { ValidationError } from '#kernel';
import { kindWithArticle, ModelRegistry } from '#model-providers';

@Injectable()
export class AgentRules {
  constructor(private readonly models: ModelRegistry) {}

  /** Only a configured chat model: any other name made every later generate call fail. */
  requireChatModel(model: string | undefined): void {
    if (model === undefined) return;
    const configured = this.models.get(model);
    if (configured?.kind !== 'chat')
      throw new ValidationError(
        'invalid_model',
        configured
          ? `'${model}' is ${kindWithArticle(configured.kind)} model, not a chat model`
          : `'${model}' is not a chat model configured on this instance (GET /api/v1/core/llm/{agentId}/models lists them)`,
        'model',
      );
  }

  defaultChatModel(): string {
    return this.models.defaultModel('chat')!.key;
  }
}
