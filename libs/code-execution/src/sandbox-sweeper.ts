// Destroys the sandboxes of this process that were idle for SANDBOX_IDLE_MINUTES or alive for SANDBOX_HARD_MINUTES,
// recording why in their streams first. Runs in the api (which holds the sandboxes it created).
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '#infrastructure';
import { CodeRuns } from './code-runs.js';

@Injectable()
export class SandboxSweeper implements OnModuleInit, OnModuleDestroy {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly runs: CodeRuns,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    const every = Math.max(1_000, Math.min(60_000, this.runs.config.sandbox.idleTimeoutMs / 4));
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  async sweep(now = Date.now()): Promise<void> {
    for (const { conversationId, reason } of this.runs.expired(now))
      await this.runs
        .destroy(conversationId, reason)
        .catch((error: unknown) =>
          this.logger.warn(
            { conversationId, err: error instanceof Error ? error.name : 'error' },
            'sandbox sweep failed',
          ),
        );
  }
}
