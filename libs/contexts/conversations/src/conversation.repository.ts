// The write side of normal and private conversations: every text is sealed with its data key (the message's own, the
// conversation's for its title, the checkpoint's for its summary, all filed under the conversation so that deleting it
// destroys them together), the Conversation decider decides, its events are appended; a deletion then destroys the
// deleted texts' keys at once (the erasure process does it again from the log, should this process die in between).
// It serves no reads (conversation.reader.ts) and waits for no read model (the controllers and the stored place do,
// through ReadYourWritesBus). Its callers are the command handlers only.
import { Inject, Injectable, Optional } from '@nestjs/common';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
import { ContentCipher, KEY_STORE, type KeyStore } from '#key-store';
import { conversationDecider, type ConversationCommand } from './conversation.decider.js';
import { conversationStreamId, type StoredVisibility } from './conversation.events.js';
import type { NewAnswer, NewCheckpoint, PlainAttachment } from './conversation-records.js';
import { afterNextCheckPhase } from './check-phases.js';
import { OpenedHistory } from './opened-history.js';
import type { ConversationChange, ConversationWriter } from './owned-conversation.js';

/** A turn's user message, in clear, as the stored place hands it over. */
export interface StoredTurn {
  readonly conversationId: string;
  readonly agentId: string;
  readonly userId: string;
  /** Given when this turn starts the conversation. */
  readonly start: { apiKeyId: string; visibility: StoredVisibility; title: string } | null;
  readonly messageId: string;
  /** The id the turn's answer will have: its data key is created with the message's. */
  readonly answerId: string;
  readonly content: string;
  readonly attachments: readonly PlainAttachment[];
  /** The message it follows when it starts a branch (null: before the first); absent: the conversation's head. */
  readonly parentId?: string | null | undefined;
  /** The message is appended once this settles, its keys committed before (TurnQuestion.appendAfter). */
  readonly appendAfter?: Promise<unknown> | undefined;
}

@Injectable()
export class ConversationRepository implements ConversationWriter {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly cipher: ContentCipher,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
    /** The reader's opened history, forgotten on a deletion (a process without one keeps none). */
    @Optional() private readonly opened: OpenedHistory = new OpenedHistory(),
  ) {}

  /**
   * Posts a turn's user message, starting the conversation on its first turn. The turn's data keys (the title's, the
   * message's, and the answer's it will record next) are obtained in one key-store write, each filed under the
   * conversation, so a turn pays one durable key commit rather than one per key.
   */
  async startTurn(turn: StoredTurn, context: CommandContext): Promise<number> {
    const { conversationId, messageId } = turn;
    const sealer = await this.cipher.sealer(conversationId, [
      ...(turn.start ? [conversationId] : []),
      messageId,
      turn.answerId,
    ]);
    const seal = (text: string) => sealer.seal(messageId, text);
    if (turn.appendAfter) await afterNextCheckPhase(turn.appendAfter);
    return this.decide(
      {
        type: 'StartTurn',
        conversationId,
        userId: turn.userId,
        agentId: turn.agentId,
        start: turn.start && {
          apiKeyId: turn.start.apiKeyId,
          visibility: turn.start.visibility,
          title: sealer.seal(conversationId, turn.start.title),
        },
        messageId,
        content: seal(turn.content),
        attachments: turn.attachments.map((attachment) => ({
          documentId: attachment.documentId,
          name: seal(attachment.name),
          mimeType: attachment.mimeType,
          sizeBytes: attachment.sizeBytes,
          text: attachment.text === null ? null : seal(attachment.text),
        })),
        ...(turn.parentId !== undefined ? { parentId: turn.parentId } : {}),
      },
      context,
    );
  }

  /** Records a turn's answer; its key (created by startTurn) is looked up once for its text and its tool calls. */
  async recordAnswer(conversationId: string, answer: NewAnswer, context: CommandContext): Promise<number> {
    const sealer = await this.cipher.sealer(conversationId, [answer.messageId]);
    const seal = (text: string) => sealer.seal(answer.messageId, text);
    return this.decide(
      {
        type: 'RecordAnswer',
        conversationId,
        answer: {
          ...answer,
          content: seal(answer.content),
          citations: answer.citations.map((citation) =>
            citation.summary
              ? { ...citation, summary: { ...citation.summary, text: seal(citation.summary.text) } }
              : citation,
          ),
          provenance: {
            ...answer.provenance,
            toolCalls: answer.provenance.toolCalls.map((call) => ({
              ...call,
              arguments: seal(call.arguments),
              ...(call.view ? { view: { ...call.view, result: seal(call.view.result) } } : {}),
            })),
          },
        },
      },
      context,
    );
  }

  async compact(conversationId: string, checkpoint: NewCheckpoint, context: CommandContext): Promise<number> {
    const summary = await this.cipher.seal(checkpoint.checkpointId, conversationId, checkpoint.summary);
    return this.decide(
      { type: 'CompactConversation', conversationId, checkpoint: { ...checkpoint, summary } },
      context,
    );
  }

  async change(
    conversationId: string,
    userId: string,
    change: ConversationChange,
    context: CommandContext,
  ): Promise<number> {
    const { title, ...flags } = change;
    return this.decide(
      {
        type: 'ChangeConversation',
        conversationId,
        userId,
        ...flags,
        ...(title !== undefined
          ? { title: await this.cipher.seal(conversationId, conversationId, title) }
          : {}),
      },
      context,
    );
  }

  async switchBranch(
    conversationId: string,
    userId: string,
    messageId: string,
    context: CommandContext,
  ): Promise<number> {
    return this.decide({ type: 'SwitchBranch', conversationId, userId, messageId }, context);
  }

  /** Deletes one message: its key is destroyed at once, and a discarded checkpoint's with it. */
  async deleteMessage(
    conversationId: string,
    userId: string,
    messageId: string,
    context: CommandContext,
  ): Promise<number> {
    const result = await this.aggregates.decide(
      conversationStreamId(conversationId),
      conversationDecider,
      { type: 'DeleteMessage', conversationId, userId, messageId },
      context,
    );
    this.opened.forget(conversationId);
    await this.keys.destroy(messageId);
    for (const event of result.events)
      if (event.type === 'CheckpointDiscarded') await this.keys.destroy(event.data.checkpointId);
    return result.position;
  }

  /** Deletes the conversation: every key filed under it is destroyed at once. */
  async delete(
    conversationId: string,
    userId: string | null,
    reason: 'requested' | 'agent_deleted',
    context: CommandContext,
  ): Promise<number> {
    const position = await this.decide(
      { type: 'DeleteConversation', conversationId, userId, reason },
      context,
    );
    this.opened.forget(conversationId);
    await this.keys.destroyGroup(conversationId);
    return position;
  }

  private async decide(command: ConversationCommand, context: CommandContext): Promise<number> {
    const result = await this.aggregates.decide(
      conversationStreamId(command.conversationId),
      conversationDecider,
      command,
      context,
    );
    return result.position;
  }
}
