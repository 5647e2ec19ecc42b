// An MCP App whose server says, during a call, that its tools, resources or prompts changed is read again as
// `POST /apps/{id}/refresh` reads it (RefreshApp, as the platform), so the next turn offers what the server offers
// now; notifications of one App within a second make one refresh, and a refresh that fails is logged, never thrown
// (the offer last read stays).
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Logger } from 'pino';
import { platformPrincipal } from '#access';
import { LOGGER, SYSTEM_ACTOR } from '#kernel';
import { RefreshApp } from '../commands/refresh-app/refresh-app.command.js';

const DEBOUNCE_MS = 1_000;
const PLATFORM = platformPrincipal('mcp-list-changed');

@Injectable()
export class McpListChanged implements OnModuleDestroy {
  private readonly due = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly bus: CommandBus,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The App's server said a list changed: a refresh is due (once for the notifications of the next second). */
  changed(appId: string): void {
    if (this.due.has(appId)) return;
    this.due.set(
      appId,
      setTimeout(() => void this.refresh(appId), DEBOUNCE_MS),
    );
  }

  private async refresh(appId: string): Promise<void> {
    this.due.delete(appId);
    const context = { actor: SYSTEM_ACTOR, correlationId: randomUUID(), now: () => new Date() };
    try {
      await this.bus.execute(new RefreshApp(appId, context, PLATFORM));
    } catch (error) {
      this.logger.warn(
        { appId, reason: error instanceof Error ? error.message : String(error) },
        "an MCP App's offer could not be read again after its server said it changed",
      );
    }
  }

  onModuleDestroy(): void {
    for (const timer of this.due.values()) clearTimeout(timer);
    this.due.clear();
  }
}
