// How an HTTP write runs a command: send it on the command bus (its handler is the only code that runs its decider),
// then wait until the read models it names have applied the command's position, so the client's next read sees its
// change (read-your-writes). Process managers send on the plain CommandBus: nothing waits for their writes.
import { Inject, Injectable } from '@nestjs/common';
import { Command, CommandBus } from '@nestjs/cqrs';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { EVENT_STORE, type EventStore } from '#event-store';
import { ProjectionWaiter } from './projection-waiter.js';
import type { ReadModel } from './projector.js';

/** What a write command answers: the id it wrote and the global position of its last event (0: nothing changed). */
export interface WriteResult {
  readonly id: string;
  readonly position: number;
}

/** A projection a write waits for: a read model, or a process manager whose own writes follow (by its name). */
export type Settles = Pick<ReadModel, 'projection'>;

@Injectable()
export class ReadYourWritesBus {
  constructor(
    private readonly bus: CommandBus,
    private readonly waiter: ProjectionWaiter,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  /** Runs the command, then waits (bounded by READ_YOUR_WRITES_TIMEOUT_MS) for `settles` to apply its position. */
  async send<R extends WriteResult>(command: Command<R>, settles: readonly Settles[]): Promise<R> {
    const result = await this.bus.execute(command);
    await this.settle(result.position, settles);
    return result;
  }

  /**
   * Waits for `settles` to apply the log as it stands now (what process managers appended after a write, or
   * everything before a read that must see it); false if the wait timed out.
   */
  async settleAtHead(settles: readonly Settles[]): Promise<boolean> {
    return this.settle(await this.events.headPosition(), settles);
  }

  /** Waits for `settles` to apply `position`; false if the wait timed out. */
  settle(position: number, settles: readonly Settles[]): Promise<boolean> {
    return this.waiter.waitFor(
      settles.map((target) => target.projection),
      position,
      this.config.readYourWritesTimeoutMs,
    );
  }
}
