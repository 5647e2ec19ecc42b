// The command side as a service: the generic routine bound to the configured store and retry budget. Separate from
// ReadYourWrites because process managers (which the projection runner holds) send commands too.
import { Inject, Injectable } from '@nestjs/common';
import { PLATFORM_CONFIG, type DomainEvent, type PlatformConfig } from '#kernel';
import { EVENT_STORE, type EventStore } from '#event-store';
import {
  AggregateStateCache,
  handleCommand,
  loadState,
  type CommandContext,
  type CommandResult,
  type Decider,
  ProjectionWaiter,
} from '#eventsourcing';

@Injectable()
export class CommandRunner {
  private readonly states = new AggregateStateCache();

  constructor(
    @Inject(EVENT_STORE) readonly store: EventStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  run<State, Command, Event extends DomainEvent>(
    streamId: string,
    decider: Decider<State, Command, Event>,
    command: Command,
    context: CommandContext,
  ): Promise<CommandResult<Event>> {
    return handleCommand(
      this.store,
      streamId,
      decider,
      command,
      context,
      this.config.commandRetries,
      this.states,
    );
  }

  load<State, Event extends DomainEvent>(
    streamId: string,
    decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>,
  ) {
    return loadState(this.store, streamId, decider, this.states);
  }
}

/** The wait every HTTP write does before it answers, so the client's next read sees its change. */
@Injectable()
export class ReadYourWrites {
  constructor(
    private readonly waiter: ProjectionWaiter,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  /** Waits until the named projections have applied `position` (bounded by READ_YOUR_WRITES_TIMEOUT_MS). */
  settle(position: number, projections: readonly string[]): Promise<boolean> {
    return this.waiter.waitFor(projections, position, this.config.readYourWritesTimeoutMs);
  }
}
