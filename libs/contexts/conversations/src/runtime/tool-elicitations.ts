// The questions a tool's server asks the person whose turn it is (MCP elicitation) that this process holds, by id: the
// turn's tool call waits here, and the person's answer (POST …/elicitations/{elicitationId}) or the expiry
// (TOOL_APPROVAL_TIMEOUT_SECONDS, then `cancel`) ends the wait. Held in memory, like ToolApprovals: an answer reaches
// the call on the process that runs its turn.
import { Injectable } from '@nestjs/common';
import type { ApprovalOwner } from './tool-approvals.js';

/** The person's answer as MCP carries it back to the server. */
export interface ElicitationAnswer {
  readonly action: 'accept' | 'decline' | 'cancel';
  /** The form's values (accept only). */
  readonly content?: Readonly<Record<string, unknown>>;
}

/** Why the content of an accepted answer does not fit the requested schema (empty: it fits). */
export type ElicitationCheck = (content: Readonly<Record<string, unknown>>) => readonly string[];

interface Waiting {
  readonly owner: ApprovalOwner;
  readonly check: ElicitationCheck;
  readonly settle: (answer: ElicitationAnswer) => void;
}

@Injectable()
export class ToolElicitations {
  private readonly waiting = new Map<string, Waiting>();

  /** Waits for the owner's answer, or `cancel` after `timeoutMs`; an aborted turn ends the wait with its reason. */
  wait(
    elicitationId: string,
    owner: ApprovalOwner,
    timeoutMs: number,
    signal: AbortSignal,
    check: ElicitationCheck,
  ): Promise<ElicitationAnswer> {
    signal.throwIfAborted();
    return new Promise<ElicitationAnswer>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        this.waiting.delete(elicitationId);
      };
      const timer = setTimeout(() => {
        done();
        resolve({ action: 'cancel' });
      }, timeoutMs);
      const aborted = () => {
        done();
        reject(signal.reason);
      };
      signal.addEventListener('abort', aborted, { once: true });
      this.waiting.set(elicitationId, {
        owner,
        check,
        settle: (answer) => {
          done();
          resolve(answer);
        },
      });
    });
  }

  /**
   * Answers a waiting question of `who`'s: `not_found` when none waits (unknown, answered, expired, or another's),
   * the problems when accepted content does not fit the requested schema (nothing answered then), else `answered`.
   */
  answer(
    elicitationId: string,
    who: ApprovalOwner,
    answer: ElicitationAnswer,
  ): 'not_found' | 'answered' | { readonly problems: readonly string[] } {
    const waiting = this.waiting.get(elicitationId);
    if (
      !waiting ||
      waiting.owner.userId !== who.userId ||
      waiting.owner.conversationId !== who.conversationId ||
      waiting.owner.agentId !== who.agentId
    )
      return 'not_found';
    if (answer.action === 'accept') {
      const problems = waiting.check(answer.content ?? {});
      if (problems.length > 0) return { problems };
      waiting.settle({ action: 'accept', content: answer.content ?? {} });
    } else waiting.settle({ action: answer.action });
    return 'answered';
  }
}
