// The turns this process is running with `continueOnDisconnect` (the web app's): a client that leaves (a reload) does
// not stop them, so they are stopped by their owner's explicit Stop (POST …/{conversationId}/stop), which aborts the
// model call as a disconnect would. Held in memory: a Stop reaches the turn on the process that runs it.
import { Injectable } from '@nestjs/common';

@Injectable()
export class RunningTurns {
  private readonly running = new Map<string, Set<AbortController>>();

  /** Registers a turn of this conversation; the returned function unregisters it when the turn ends. */
  start(conversationId: string, controller: AbortController): () => void {
    let turns = this.running.get(conversationId);
    if (!turns) this.running.set(conversationId, (turns = new Set()));
    turns.add(controller);
    return () => {
      turns.delete(controller);
      if (turns.size === 0 && this.running.get(conversationId) === turns) this.running.delete(conversationId);
    };
  }

  /** Aborts the conversation's running turns; whether there was one. */
  stop(conversationId: string): boolean {
    const turns = this.running.get(conversationId);
    if (!turns) return false;
    for (const controller of turns) controller.abort();
    return true;
  }
}
