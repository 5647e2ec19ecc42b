// The decision of the person whose turn it is on a tool call waiting for approval: approve (the call is made) or deny
// (the model reads that it was refused). Only the conversation's owner reaches it (anyone else: 404, as for an unknown
// conversation), and only while the call waits on this process (else 404 `tool_call_not_found`). The turn records the
// decision as an event of the conversation.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { PlatformError } from '#kernel';
import { toErrorResponse } from '#http';
import { Requires, type Principal } from '#access';
import { ConversationResolver } from '../../conversation-resolver.js';
import { ConversationDirectory } from '../../conversation-directory.js';
import { ToolApprovals } from '../../runtime/tool-approvals.js';
import type { BackgroundTurn, PendingToolCall } from '../../runtime/background-turn.js';
import { turnResult, type TurnAnswer } from '../../runtime/turn-answer.js';

export const toolCallNotFound = (callId: string): PlatformError =>
  new PlatformError(
    'not_found',
    'tool_call_not_found',
    `No tool call '${callId}' of this conversation waits for approval`,
    'callId',
  );

export interface ToolCallDecision {
  readonly callId: string;
  readonly decision: 'approved' | 'denied';
  /** A non-streamed turn's: what it came to after the decision (more calls waiting, its answer, or its error). */
  readonly turn?:
    | { readonly status: 'awaiting_approval'; readonly pendingToolCalls: readonly PendingToolCall[] }
    | ({ readonly status: 'answered' } & ReturnType<typeof turnResult>)
    | { readonly status: 'failed'; readonly error: unknown };
}

@Requires(ConversationResolver, (conversations, { agentId, conversationId }: DecideToolCall) =>
  conversations.owned(agentId, conversationId),
)
export class DecideToolCall extends Command<ToolCallDecision> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly callId: string,
    readonly decision: 'approve' | 'deny',
    readonly userId: string,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(DecideToolCall)
export class DecideToolCallHandler implements ICommandHandler<DecideToolCall> {
  constructor(
    private readonly directory: ConversationDirectory,
    private readonly approvals: ToolApprovals,
  ) {}

  async execute({
    agentId,
    conversationId,
    callId,
    decision,
    userId,
  }: DecideToolCall): Promise<ToolCallDecision> {
    const owned = await this.directory.owned(agentId, conversationId);
    const decided = this.approvals.decide(
      callId,
      { agentId, conversationId: owned.record.id, userId },
      decision,
    );
    if (!decided) throw toolCallNotFound(callId);
    const taken = { callId, decision: decision === 'approve' ? ('approved' as const) : ('denied' as const) };
    if (!decided.turn) return taken;
    const state = await (decided.turn as BackgroundTurn<TurnAnswer>).settled(callId);
    if (state.status === 'answered')
      return { ...taken, turn: { status: 'answered', ...turnResult(state.answer) } };
    if (state.status === 'failed')
      return {
        ...taken,
        turn: {
          status: 'failed',
          error: toErrorResponse(state.error)?.body.error ?? {
            type: 'api_error',
            code: 'internal_error',
            message: 'internal error; it has been logged',
          },
        },
      };
    return { ...taken, turn: state };
  }
}
