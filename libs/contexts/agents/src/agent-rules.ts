// The rules a write on an Agent checks outside the Agent's own stream: which Space it may go into and which model it
// may use. The command handlers apply them before the decider runs.
import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError, ValidationError } from '#kernel';
import type { PrincipalOrCaller } from '#access';
import { kindWithArticle, ModelRegistry } from '#model-providers';
import { READ_STORE, type ReadStore } from '#read-store';
import { changeableSpace, SpaceGrants } from '#spaces';

@Injectable()
export class AgentRules {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly grants: SpaceGrants,
    private readonly models: ModelRegistry,
  ) {}

  /**
   * An Agent goes only into a Space the principal may change: one it cannot see is `unknown_space` (whether or not it
   * exists), one it only sees is 403. Moving an own Agent into another team's Space gave access to its Knowledge.
   */
  async requireSpace(spaceId: string, who: PrincipalOrCaller): Promise<void> {
    try {
      await changeableSpace(this.readStore, this.grants, spaceId, who, 'space.content.change');
    } catch (error) {
      if (error instanceof NotFoundError)
        throw new ValidationError('unknown_space', `Space '${spaceId}' does not exist`, 'spaceId');
      throw error;
    }
  }

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
