// How a turn makes a call of a recorded tool (an App's): the call is recorded as requested (its arguments sealed with
// the answer's key); a tool set to `ask` then waits for the person whose turn it is (`tool_approval_required`, then
// their decision or the expiry, recorded as approved or denied; a turn stopped while it waits records it denied as
// `stopped`); a denied call is not made and the model reads that it was refused, as a tool error; a made call is
// recorded completed or failed with its result, and while it runs it has a session with the turn
// (tool-call-session.ts). Other tools just run.
import { newId } from '#kernel';
import type { CommandContext } from '#eventsourcing';
import type { ContextTool, ToolOutcome, TurnContext } from './context-providers.js';
import type { BackgroundTurn, PendingToolCall } from './background-turn.js';
import type { ConversationPlace } from './places/conversation-place.js';
import type { ApprovalOwner, ToolApprovals } from './tool-approvals.js';
import type { TurnEmitter } from './turn-events.js';
import { toolCallSession, type ToolCallSessionDeps } from './tool-call-session.js';

/** A call as the model asked for it. */
export interface ModelToolCall {
  /** The model's id of the call (`tool_call` and `tool_result` name it). */
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

export interface ToolCallGateDeps {
  readonly place: ConversationPlace;
  readonly context: CommandContext;
  readonly approvals: ToolApprovals;
  readonly owner: ApprovalOwner;
  readonly timeoutMs: number;
  readonly emit: TurnEmitter;
  /** A non-streamed turn's: told when a call starts and stops waiting, it answers with the waiting calls. */
  readonly background?: BackgroundTurn | undefined;
  /** What a recorded call may ask of the turn while it runs (progress, logs, sampling, questions to the person). */
  readonly session?: Omit<ToolCallSessionDeps, 'emit' | 'owner' | 'timeoutMs' | 'signal'> | undefined;
}

export class ToolCallGate {
  constructor(private readonly deps: ToolCallGateDeps) {}

  async run(call: ModelToolCall, tool: ContextTool, args: unknown, turn: TurnContext): Promise<ToolOutcome> {
    if (!tool.recorded && tool.approval !== 'ask') return tool.run(args, turn);
    const { place, context } = this.deps;
    const callId = newId('tcl');
    const approval = tool.approval ?? 'auto';
    const base = { callId, answerId: turn.answerId };
    if (tool.recorded)
      await place.recordToolCall(
        {
          kind: 'requested',
          ...base,
          replyTo: turn.messageId,
          name: call.name,
          arguments: call.arguments,
          approval,
        },
        context,
      );
    if (approval === 'ask') {
      const decision = await this.approval(callId, call, turn.signal).catch(async (error: unknown) => {
        if (tool.recorded && turn.signal.aborted)
          await place.recordToolCall({ kind: 'decided', callId, decision: 'stopped', userId: null }, context);
        throw error;
      });
      if (tool.recorded)
        await place.recordToolCall(
          {
            kind: 'decided',
            callId,
            decision,
            userId: decision === 'expired' ? null : this.deps.owner.userId,
          },
          context,
        );
      if (decision !== 'approved')
        return {
          ...(tool.recorded ? { callId } : {}),
          content:
            decision === 'expired'
              ? `The call of ${call.name} was refused: nobody approved it in time, so it was not made.`
              : `The call of ${call.name} was refused by the person: it was not made.`,
          ok: false,
          sources: [],
        };
    }
    const { session } = this.deps;
    const asked = tool.recorded && session ? this.session(session, callId, call.id, turn) : undefined;
    let outcome: ToolOutcome;
    try {
      outcome = await tool.run(args, turn, asked);
    } finally {
      asked?.end();
    }
    if (!tool.recorded) return outcome;
    await place.recordToolCall(
      { kind: 'finished', ...base, ok: outcome.ok, content: outcome.content },
      context,
    );
    return { ...outcome, callId };
  }

  private session(
    deps: NonNullable<ToolCallGateDeps['session']>,
    callId: string,
    id: string,
    turn: TurnContext,
  ) {
    const { emit, owner, timeoutMs } = this.deps;
    return toolCallSession({ ...deps, emit, owner, timeoutMs, signal: turn.signal }, { callId, id });
  }

  private async approval(callId: string, call: ModelToolCall, signal: AbortSignal) {
    const pending: PendingToolCall = { callId, name: call.name, arguments: call.arguments };
    await this.deps.emit({ event: 'tool_approval_required', data: { ...pending, id: call.id } });
    const { background } = this.deps;
    background?.onWaiting(pending, true);
    try {
      return await this.deps.approvals.wait(
        pending,
        this.deps.owner,
        this.deps.timeoutMs,
        signal,
        background ?? null,
      );
    } finally {
      background?.onWaiting(pending, false);
    }
  }
}
