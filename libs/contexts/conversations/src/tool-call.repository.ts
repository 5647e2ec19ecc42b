// The write side of a conversation's tool calls: the arguments and the result or error sealed with the answer's data
// key (filed under the conversation, created with the turn's question), then the tool-call decider decides and its
// events are appended to the conversation's stream. Its callers are the command handlers only.
import { Injectable } from '@nestjs/common';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
import { ContentCipher } from '#key-store';
import { conversationStreamId } from './conversation.events.js';
import { toolCallDecider } from './tool-call.decider.js';

/** What a turn reports of a recorded tool's call, in clear. */
export type ToolCallFact =
  | {
      readonly kind: 'requested';
      readonly callId: string;
      readonly answerId: string;
      readonly replyTo: string;
      readonly name: string;
      readonly arguments: string;
      readonly approval: 'auto' | 'ask';
    }
  | {
      readonly kind: 'decided';
      readonly callId: string;
      /** `stopped`: the turn was stopped (or its client left) while the call waited. */
      readonly decision: 'approved' | 'denied' | 'expired' | 'stopped';
      readonly userId: string | null;
    }
  | {
      readonly kind: 'finished';
      readonly callId: string;
      readonly answerId: string;
      readonly ok: boolean;
      readonly content: string;
    };

@Injectable()
export class ToolCallRepository {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly cipher: ContentCipher,
  ) {}

  async record(conversationId: string, fact: ToolCallFact, context: CommandContext): Promise<number> {
    const { callId } = fact;
    const seal = async (answerId: string, text: string) =>
      (await this.cipher.sealer(conversationId, [answerId])).seal(answerId, text);
    const command =
      fact.kind === 'requested'
        ? {
            type: 'RequestToolCall' as const,
            conversationId,
            callId,
            answerId: fact.answerId,
            replyTo: fact.replyTo,
            name: fact.name,
            arguments: await seal(fact.answerId, fact.arguments),
            approval: fact.approval,
          }
        : fact.kind === 'decided'
          ? {
              type: 'DecideToolCall' as const,
              conversationId,
              callId,
              decision: fact.decision,
              userId: fact.userId,
            }
          : {
              type: 'FinishToolCall' as const,
              conversationId,
              callId,
              ok: fact.ok,
              content: await seal(fact.answerId, fact.content),
            };
    const result = await this.aggregates.decide(
      conversationStreamId(conversationId),
      toolCallDecider,
      command,
      context,
    );
    return result.position;
  }
}
