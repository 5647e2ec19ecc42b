// Read-your-writes: a write returns its log position, and the API waits (bounded) until the projections that the next
// read needs have applied it. Local runners wake the wait at once; other processes' runners are polled.
import type { ReadStore } from '#read-store';
import type { ProjectionRunner } from './projection-runner.js';

export class ProjectionWaiter {
  constructor(
    private readonly readStore: ReadStore,
    private readonly runner: ProjectionRunner | null,
    private readonly pollMs = 20,
  ) {}

  /** True once every named projection's live generation has reached the position; false on timeout. */
  async waitFor(names: readonly string[], position: number, timeoutMs: number): Promise<boolean> {
    if (position <= 0 || names.length === 0) return true;
    const deadline = Date.now() + timeoutMs;
    let pending = [...names];
    while (true) {
      pending = await this.notYetAt(pending, position);
      if (pending.length === 0) return true;
      const remaining = deadline - Date.now();
      if (remaining <= 0) return false;
      await this.nextProgress(Math.min(remaining, this.pollMs));
    }
  }

  private async notYetAt(names: readonly string[], position: number): Promise<string[]> {
    const local = new Map((this.runner?.status() ?? []).map((status) => [status.name, status]));
    const behind: string[] = [];
    for (const name of names) {
      const status = local.get(name);
      if (status && status.state === 'live' && status.checkpoint >= position) continue;
      const record = await this.readStore.projection(name);
      if (record?.liveGeneration != null) {
        const checkpoint = await this.readStore.checkpoint({ name, generation: record.liveGeneration });
        if (checkpoint >= position) continue;
      }
      behind.push(name);
    }
    return behind;
  }

  private nextProgress(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.runner?.off('progress', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.runner?.on('progress', done);
    });
  }
}
