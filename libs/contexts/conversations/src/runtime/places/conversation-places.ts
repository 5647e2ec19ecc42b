// Chooses a turn's place once: the caller's conversation of this Agent named by the request (the gate asks that it is
// the caller's: UseConversation; incognito or stored, 404 when neither), or a new one (incognito when asked, else stored; a keyed retry of a creation finds the
// conversation its first try started).
import { Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Caller } from '#access';
import type { Visibility } from '../../conversation-records.js';
import { ConversationNotFoundError } from '../../conversation.decider.js';
import type { ConversationRecord } from '../../conversation-records.js';
import { ConversationReader } from '../../conversation.reader.js';
import { ConversationWrites } from '../../conversation-writes.js';
import { IncognitoConversations } from '../../incognito-conversations.js';
import { UseConversation } from '../../queries/use-conversation/use-conversation.query.js';
import { titleOf, type ConversationPlace } from './conversation-place.js';
import { IncognitoPlace } from './incognito-place.js';
import { StoredPlace } from './stored-place.js';

export interface PlaceRequest {
  readonly agentId: string;
  readonly caller: Caller;
  /** The conversation named by the request, if any. */
  readonly conversationId?: string | undefined;
  readonly visibility?: Visibility | undefined;
  readonly content: string;
  readonly keyed: boolean;
}

@Injectable()
export class ConversationPlaces {
  constructor(
    private readonly reader: ConversationReader,
    private readonly incognito: IncognitoConversations,
    private readonly bus: CommandBus,
    private readonly queries: QueryBus,
    private readonly writes: ConversationWrites,
  ) {}

  /** The place of conversation `conversationId` (the request's, or the new one's id). */
  async choose(request: PlaceRequest, conversationId: string): Promise<ConversationPlace> {
    const { agentId, caller } = request;
    const { userId } = caller;
    const requested = request.visibility === 'private' ? 'private' : 'normal';
    const storedPlace = (found: ConversationRecord | null) =>
      new StoredPlace(
        this.reader,
        { bus: this.bus, writes: this.writes },
        conversationId,
        agentId,
        caller,
        found,
        requested,
      );
    if (request.conversationId !== undefined) {
      await this.queries.execute(new UseConversation(agentId, conversationId, caller));
      const live = this.incognito.find(conversationId, agentId);
      if (live) return new IncognitoPlace(this.incognito, live);
      const record = await this.reader.find(conversationId, agentId);
      if (!record) throw new ConversationNotFoundError(conversationId);
      return storedPlace(record);
    }
    // Not named by the request, the id is new or derived from the caller's user and key (turn-idempotency.ts): a
    // conversation found under it is the caller's own.
    if (request.visibility === 'incognito') {
      const live = this.incognito.find(conversationId, agentId);
      if (live) return new IncognitoPlace(this.incognito, live);
      this.incognito.start(conversationId, agentId, userId, titleOf(request.content), new Date());
      return new IncognitoPlace(this.incognito, this.incognito.find(conversationId, agentId)!);
    }
    return storedPlace(request.keyed ? await this.reader.find(conversationId, agentId) : null);
  }
}
