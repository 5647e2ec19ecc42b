// Which conversation a message may touch, loaded for the gate (#access enforcement): the principal's own (`user.own`),
// of an Agent the principal may use (`agent.use`), stored or incognito. Any other id (another user's, another
// Agent's, unknown, deleted, an incognito one forgotten) is the same 404, so ids cannot be probed: the ask's denial
// for another's, the handler's read (ConversationDirectory.owned) for the rest. A command or query declares them with
// `@Requires(ConversationResolver, …)`.
import { Inject, Injectable } from '@nestjs/common';
import { agentToUse } from '#agents';
import { ask, type Ask } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { ConversationNotFoundError } from './conversation.decider.js';
import { ConversationReader } from './conversation.reader.js';
import { IncognitoConversations } from './incognito-conversations.js';

@Injectable()
export class ConversationResolver {
  constructor(
    private readonly reader: ConversationReader,
    private readonly incognito: IncognitoConversations,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /** The Agent a conversation route names: 404 when there is none, 403 `agent_access_denied` when not usable. */
  async agent(agentId: string): Promise<readonly Ask[]> {
    return (await agentToUse(this.readStore, agentId)).asks;
  }

  /** The conversation of the Agent, the principal's own (404 `conversation_not_found` otherwise). */
  async owned(agentId: string, conversationId: string): Promise<readonly Ask[]> {
    const asks = await this.agent(agentId);
    const owner =
      this.incognito.owner(conversationId, agentId) ?? (await this.reader.owner(conversationId, agentId));
    return owner === null
      ? asks
      : [
          ...asks,
          ask('user.own', { ownerUserId: owner }, () => new ConversationNotFoundError(conversationId)),
        ];
  }
}
