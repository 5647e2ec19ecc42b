// Destroys the sandboxes of this process that were idle for SANDBOX_IDLE_MINUTES or alive for SANDBOX_HARD_MINUTES,
// recording why in their streams first. Runs in the api (which holds the sandboxes it created).
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Logger } from 'pino';
import type { PlatformPrincipal } from '#access';
import { LOGGER, SYSTEM_ACTOR } from '#kernel';
import { CodeRuns } from './code-runs.js';
import { DestroySandbox } from './commands/destroy-sandbox/destroy-sandbox.command.js';

const PLATFORM: PlatformPrincipal = { kind: 'platform', process: 'sandbox-sweeper' };

@Injectable()
export class SandboxSweeper implements OnModuleInit, OnModuleDestroy {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly runs: CodeRuns,
    private readonly bus: CommandBus,
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
      await this.bus
        .execute(
          new DestroySandbox(
            conversationId,
            reason,
            { actor: SYSTEM_ACTOR, correlationId: `sandbox-${conversationId}`, now: () => new Date() },
            PLATFORM,
          ),
        )
        .catch((error: unknown) =>
          this.logger.warn(
            { conversationId, err: error instanceof Error ? error.name : 'error' },
            'sandbox sweep failed',
          ),
        );
  }
}
