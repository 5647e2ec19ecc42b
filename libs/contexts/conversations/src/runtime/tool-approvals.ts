// The tool calls this process holds waiting for a person's approval, by call id: the turn that made the call waits
// here, and the person's decision (POST …/tool-calls/{callId}) or the expiry (TOOL_APPROVAL_TIMEOUT_SECONDS) ends the
// wait; the calls that wait for a person are listed for them (GET …/tool-calls: a reloaded chat asks again). Held in
// memory, like RunningTurns: a decision reaches the call on the process that runs its turn.
import { Injectable } from '@nestjs/common';
import type { BackgroundTurn, PendingToolCall } from './background-turn.js';

export type ApprovalOutcome = 'approved' | 'denied' | 'expired';

/** Whose decision a waiting call takes: the person whose turn it is, in that conversation of that Agent. */
export interface ApprovalOwner {
  readonly agentId: string;
  readonly conversationId: string;
  readonly userId: string;
}

/** A call waiting for its owner's decision, as the owner is shown it. */
export interface WaitingToolCall extends PendingToolCall {
  /** When it started waiting (ISO 8601) and when it expires as denied. */
  readonly since: string;
  readonly expiresAt: string;
}

interface Waiting {
  readonly call: WaitingToolCall;
  readonly owner: ApprovalOwner;
  readonly settle: (outcome: ApprovalOutcome) => void;
  readonly turn: BackgroundTurn | null;
}

const sameOwner = (a: ApprovalOwner, b: ApprovalOwner): boolean =>
  a.userId === b.userId && a.conversationId === b.conversationId && a.agentId === b.agentId;

@Injectable()
export class ToolApprovals {
  private readonly waiting = new Map<string, Waiting>();

  /**
   * Waits for the decision on the call: approved or denied by its owner, or expired after `timeoutMs`. An aborted
   * turn (`signal`) ends the wait with the abort's reason.
   */
  wait(
    pending: PendingToolCall,
    owner: ApprovalOwner,
    timeoutMs: number,
    signal: AbortSignal,
    turn: BackgroundTurn | null = null,
  ): Promise<ApprovalOutcome> {
    signal.throwIfAborted();
    const { callId } = pending;
    const now = Date.now();
    const call: WaitingToolCall = {
      ...pending,
      since: new Date(now).toISOString(),
      expiresAt: new Date(now + timeoutMs).toISOString(),
    };
    return new Promise<ApprovalOutcome>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        this.waiting.delete(callId);
      };
      const timer = setTimeout(() => {
        done();
        resolve('expired');
      }, timeoutMs);
      const aborted = () => {
        done();
        reject(signal.reason);
      };
      signal.addEventListener('abort', aborted, { once: true });
      this.waiting.set(callId, {
        call,
        owner,
        turn,
        settle: (outcome) => {
          done();
          resolve(outcome);
        },
      });
    });
  }

  /** The calls of that conversation waiting for that person's decision, oldest first. */
  waitingFor(owner: ApprovalOwner): WaitingToolCall[] {
    return [...this.waiting.values()]
      .filter((waiting) => sameOwner(waiting.owner, owner))
      .map((waiting) => waiting.call);
  }

  /**
   * Decides a waiting call of `who`'s: false when none waits (unknown, decided, expired, or another's), else the
   * background turn it belongs to (a non-streamed turn's) or null.
   */
  decide(
    callId: string,
    who: ApprovalOwner,
    decision: 'approve' | 'deny',
  ): false | { turn: BackgroundTurn | null } {
    const waiting = this.waiting.get(callId);
    if (!waiting || !sameOwner(waiting.owner, who)) return false;
    waiting.settle(decision === 'approve' ? 'approved' : 'denied');
    return { turn: waiting.turn };
  }
}
