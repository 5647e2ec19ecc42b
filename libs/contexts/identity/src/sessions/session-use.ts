// The record of when each session was last used, kept by this process for the idle timeout, and the refresher that
// persists it now and then: once a session's stored time is a quarter of the idle timeout old, a RefreshSession
// (SessionRefreshed, which moves the read model's lastSeenAt) is sent a moment later, off the request — the guard that
// authenticates the request only notes the use. A failed refresh is dropped: the next use notes it again. Shutdown
// sends what is due.
import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { PLATFORM_CONFIG, SYSTEM_ACTOR, type PlatformConfig } from '#kernel';
import { RefreshSession } from '../commands/refresh-session/refresh-session.command.js';

/** Sessions remembered at most (the oldest noted use is forgotten first: its stored time still counts). */
const REMEMBERED = 100_000;

@Injectable()
export class SessionUse implements BeforeApplicationShutdown {
  private readonly lastSeen = new Map<string, number>();
  private readonly due = new Set<string>();
  private refreshing: Promise<void> = Promise.resolve();
  private scheduled = false;

  constructor(
    private readonly commands: CommandBus,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  /** When this process last saw the session used (0: not since it started). */
  lastSeenAt(sessionId: string): number {
    return this.lastSeen.get(sessionId) ?? 0;
  }

  /** Notes a use of the session at `now`; its stored time (`persisted`) says whether the log should hear of it. */
  used(sessionId: string, persisted: number, now: number): void {
    if (this.lastSeen.size > REMEMBERED) this.lastSeen.delete(this.lastSeen.keys().next().value!);
    this.lastSeen.set(sessionId, now);
    if (now - persisted < this.config.people.sessionIdleMs / 4) return;
    this.due.add(sessionId);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.refresh());
  }

  /** Sends RefreshSession for every session due; resolves when they are sent. */
  refresh(): Promise<void> {
    this.scheduled = false;
    const sessionIds = [...this.due];
    this.due.clear();
    this.refreshing = this.refreshing.then(async () => {
      const context = { actor: SYSTEM_ACTOR, correlationId: randomUUID(), now: () => new Date() };
      await Promise.all(
        sessionIds.map((sessionId) =>
          this.commands.execute(new RefreshSession(sessionId, context)).catch(() => undefined),
        ),
      );
    });
    return this.refreshing;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.refresh();
  }
}
