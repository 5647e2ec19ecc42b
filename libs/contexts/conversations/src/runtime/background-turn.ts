// A non-streamed turn that waits for a person's approval: its request is answered with the calls that wait (202,
// `awaiting_approval`) and the turn goes on in the background; each decision (POST …/tool-calls/{callId}) is then
// answered with what the turn came to next: more calls waiting, its answer, or its error.

/** What a non-streamed turn tells about a call waiting for approval (and what a decision answers next). */
export interface PendingToolCall {
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
}

export type BackgroundTurnState<Answer> =
  | { readonly status: 'awaiting_approval'; readonly pendingToolCalls: readonly PendingToolCall[] }
  | { readonly status: 'answered'; readonly answer: Answer }
  | { readonly status: 'failed'; readonly error: unknown };

export class BackgroundTurn<Answer = unknown> {
  private readonly pending = new Map<string, PendingToolCall>();
  private ended: BackgroundTurnState<Answer> | null = null;
  private wakers: (() => void)[] = [];

  /** The tool-call gate's word: a call starts (or stops) waiting for approval. */
  readonly onWaiting = (call: PendingToolCall, waiting: boolean): void => {
    if (waiting) this.pending.set(call.callId, call);
    else this.pending.delete(call.callId);
    this.wake();
  };

  answered(answer: Answer): void {
    this.ended = { status: 'answered', answer };
    this.wake();
  }

  failed(error: unknown): void {
    this.ended = { status: 'failed', error };
    this.wake();
  }

  /**
   * The turn's state once it waits for an approval or has ended; `decided` (a call just decided) no longer counts as
   * waiting, though the gate has not yet been told.
   */
  async settled(decided?: string): Promise<BackgroundTurnState<Answer>> {
    for (;;) {
      if (this.ended) return this.ended;
      const waiting = [...this.pending.values()].filter((call) => call.callId !== decided);
      if (waiting.length > 0) return { status: 'awaiting_approval', pendingToolCalls: waiting };
      await new Promise<void>((resolve) => this.wakers.push(resolve));
    }
  }

  private wake(): void {
    const wakers = this.wakers;
    this.wakers = [];
    for (const wake of wakers) wake();
  }
}
