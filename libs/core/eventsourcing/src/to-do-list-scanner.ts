// Work driven by a projection's to-do list (the ingestion jobs, the summary builds): the list is scanned when the
// projection applies a batch and on an interval, only while this process serves that projection live (so one process
// across the cluster works it), one scan at a time; a request that arrives during a scan runs one more after it.
import type { ProjectionRunner } from './projection-runner.js';

export class ToDoListScanner {
  private timer: NodeJS.Timeout | null = null;
  private scanning: Promise<void> | null = null;
  private rescan = false;
  private readonly onProgress = (progress: { name: string; applied: boolean }) => {
    // A batch the projection skipped (none of its events) cannot have changed the list.
    if (progress.name === this.projection && progress.applied) this.trigger();
  };

  constructor(
    private readonly runner: ProjectionRunner,
    private readonly projection: string,
    private readonly scanOnce: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
    private readonly intervalMs = 2_000,
  ) {}

  start(): void {
    if (this.timer) return;
    this.runner.on('progress', this.onProgress);
    this.timer = setInterval(() => this.trigger(), this.intervalMs);
    this.timer.unref();
    this.trigger();
  }

  async stop(): Promise<void> {
    this.runner.off('progress', this.onProgress);
    if (this.timer) clearInterval(this.timer);
    await this.scanning;
  }

  /** Resolves when no scan is running. */
  async settled(): Promise<void> {
    await this.scanning;
  }

  trigger(): void {
    if (!this.runner.isLive(this.projection)) return;
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    this.scanning = (async () => {
      do {
        this.rescan = false;
        await this.scanOnce();
      } while (this.rescan);
    })()
      .catch(this.onError)
      .finally(() => {
        this.scanning = null;
      });
  }
}
