// A conversation kept in the log: its messages are events (sealed). Its place in a turn (StoredPlace) reads through
// the ConversationReader and writes by sending the turn's commands (StartTurn, RecordAnswer, CompactConversation,
// RecordToolCall) on the command bus; its reads for the routes are StoredReads (its writer there is the
// ConversationRepository). A turn's message and answer are kept once appended: the conversation's next reads, not
// the turn, wait for the read models to show them (conversation-writes.ts).
import { CommandBus } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import type { Caller } from '#access';
import { CompactConversation } from '../../commands/compact-conversation/compact-conversation.command.js';
import { RecordAnswer } from '../../commands/record-answer/record-answer.command.js';
import { StartTurn } from '../../commands/start-turn/start-turn.command.js';
import { RecordToolCall } from '../../commands/record-tool-call/record-tool-call.command.js';
import type { ToolCallFact } from '../../tool-call.repository.js';
import type {
  ConversationRecord,
  NewAnswer,
  NewCheckpoint,
  PlainMessage,
  Visibility,
} from '../../conversation-records.js';
import type { ConversationReader } from '../../conversation.reader.js';
import type { ConversationWrites } from '../../conversation-writes.js';
import { branchListing, type Branches } from '../../conversation-listing.js';
import type { ConversationReads } from '../../owned-conversation.js';
import {
  branchHistory,
  summarised,
  titleOf,
  type ConversationPlace,
  type TurnQuestion,
} from './conversation-place.js';

/** What the stored place writes with: the command bus, and where the reads learn what to wait for. */
export interface StoredWrites {
  readonly bus: CommandBus;
  readonly writes: ConversationWrites;
}

/** The model's view starts at a summarised checkpoint's message: what the summary covers is never opened. */
const historyFrom = (record: ConversationRecord | null): string | null => {
  const checkpoint = record?.checkpoint;
  return checkpoint?.summary != null ? checkpoint.throughMessageId : null;
};

export class StoredPlace implements ConversationPlace {
  readonly created: boolean;
  readonly visibility: Visibility;
  readonly keepsTraces = true;
  /** Set by `history`: the checkpoint summarises messages of another branch than the turn's. */
  private offBranchCheckpoint = false;

  constructor(
    private readonly reader: ConversationReader,
    private readonly buses: StoredWrites,
    private readonly conversationId: string,
    private readonly agentId: string,
    private readonly caller: Caller,
    /** The conversation found, or null when this turn starts it. */
    private readonly found: ConversationRecord | null,
    /** The visibility asked for when this turn starts it. */
    private readonly requested: 'private' | 'normal',
  ) {
    this.created = found === null;
    this.visibility = found?.visibility ?? requested;
  }

  record(): ConversationRecord | null {
    return this.found;
  }

  message(messageId: string): Promise<PlainMessage | null> {
    return this.reader.message(this.conversationId, messageId);
  }

  async history(parentId?: string | null): Promise<PlainMessage[]> {
    if (!this.found) return [];
    // Until a conversation branches its history is every message: read from the checkpoint on, as kept.
    if (!this.found.branched && parentId === undefined)
      return this.reader.history(this.conversationId, historyFrom(this.found));
    const branch = branchHistory(await this.reader.history(this.conversationId), this.found, parentId);
    this.offBranchCheckpoint = !branch.checkpointOnBranch;
    return branch.messages;
  }

  checkpoint() {
    return this.offBranchCheckpoint ? null : summarised(this.found?.checkpoint);
  }

  async postUserMessage(question: TurnQuestion, context: CommandContext): Promise<void> {
    const { position } = await this.buses.bus.execute(
      new StartTurn(
        {
          conversationId: this.conversationId,
          agentId: this.agentId,
          userId: this.caller.userId,
          start: this.found
            ? null
            : {
                apiKeyId: this.caller.apiKey.id,
                visibility: this.requested,
                title: titleOf(question.content),
              },
          messageId: question.messageId,
          answerId: question.answerId,
          content: question.content,
          attachments: question.attachments,
          appendAfter: question.appendAfter,
          parentId: question.parentId,
        },
        context,
      ),
    );
    this.buses.writes.appended(this.conversationId, this.caller.userId, position);
  }

  async saveCheckpoint(checkpoint: NewCheckpoint, context: CommandContext): Promise<void> {
    await this.buses.bus.execute(new CompactConversation(this.conversationId, checkpoint, context));
  }

  async recordAnswer(answer: NewAnswer, _at: Date, context: CommandContext): Promise<void> {
    const { position } = await this.buses.bus.execute(new RecordAnswer(this.conversationId, answer, context));
    this.buses.writes.appended(this.conversationId, this.caller.userId, position);
  }

  async recordToolCall(fact: ToolCallFact, context: CommandContext): Promise<void> {
    const { position } = await this.buses.bus.execute(new RecordToolCall(this.conversationId, fact, context));
    this.buses.writes.appended(this.conversationId, this.caller.userId, position);
  }
}

/** A stored conversation's reads for the routes, through the ConversationReader. */
export class StoredReads implements ConversationReads {
  constructor(
    private readonly reader: ConversationReader,
    private readonly record: ConversationRecord,
  ) {}

  async messages(page: { limit: number; cursor: string | null }, branches: Branches) {
    const { id } = this.record;
    // Until a conversation branches, its listing is its messages in the read model's order.
    if (!this.record.branched) {
      const listed = await this.reader.messages(id, page);
      return { ...listed, data: listed.data.map((message) => ({ ...message, siblings: null })) };
    }
    const listing = branchListing(await this.reader.outline(id), this.record, branches, page);
    const opened = await this.reader.messagesIn(
      id,
      listing.data.map((node) => node.id),
    );
    return {
      data: opened.map((message) => ({ ...message, siblings: listing.siblings.get(message.id) ?? null })),
      nextCursor: listing.nextCursor,
    };
  }

  message(messageId: string): Promise<PlainMessage | null> {
    return this.reader.message(this.record.id, messageId);
  }

  toolArguments(message: PlainMessage): Promise<(string | null)[]> {
    return this.reader.toolArguments(message);
  }

  toolViewResults(message: PlainMessage): Promise<(string | null)[]> {
    return this.reader.toolViewResults(message);
  }

  async history(): Promise<PlainMessage[]> {
    if (!this.record.branched) return this.reader.history(this.record.id, historyFrom(this.record));
    return branchHistory(await this.reader.history(this.record.id), this.record, undefined).messages;
  }
}
