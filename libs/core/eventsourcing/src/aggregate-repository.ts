// The write side's one door to the log: a handler hands it a stream, its decider, a command and the command's
// context; it loads (through a bounded cache of folded states), decides, and appends with the expected revision
// (handleCommand). It never waits for read models: an HTTP write that must read its own change sends its command
// through ReadYourWritesBus, which waits after the handler has run.
import { Inject, Injectable } from '@nestjs/common';
import { PLATFORM_CONFIG, type DomainEvent, type PlatformConfig } from '#kernel';
import { EVENT_STORE, type EventStore } from '#event-store';
import {
  AggregateStateCache,
  handleCommand,
  handleCreation,
  loadState,
  recordFacts,
  type CommandContext,
  type CommandResult,
} from './command-handling.js';
import type { Decider } from './decider.js';

@Injectable()
export class AggregateRepository {
  private readonly states = new AggregateStateCache();

  constructor(
    @Inject(EVENT_STORE) readonly store: EventStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  /**
   * Loads the stream, runs the decider and appends what it decided, deciding again on a concurrent write (up to the
   * configured retries; `retries: 0` where the first writer wins and a concurrent one must hear of it).
   */
  decide<State, Command, Event extends DomainEvent>(
    streamId: string,
    decider: Decider<State, Command, Event>,
    command: Command,
    context: CommandContext,
    options: { readonly retries?: number } = {},
  ): Promise<CommandResult<Event>> {
    return handleCommand(
      this.store,
      streamId,
      decider,
      command,
      context,
      options.retries ?? this.config.commandRetries,
      this.states,
    );
  }

  /**
   * Like `decide`, for a stream the caller has just named with a fresh random id: appended expecting no stream,
   * without reading it first (handleCreation); an existing stream is loaded and decided on as by `decide`.
   */
  create<State, Command, Event extends DomainEvent>(
    streamId: string,
    decider: Decider<State, Command, Event>,
    command: Command,
    context: CommandContext,
  ): Promise<CommandResult<Event>> {
    return handleCreation(
      this.store,
      streamId,
      decider,
      command,
      context,
      this.config.commandRetries,
      this.states,
    );
  }

  /**
   * Appends what a decider that protects no invariant decided (a record of facts: usage), at the stream's current
   * revision, without loading the stream (recordFacts).
   */
  record<State, Command, Event extends DomainEvent>(
    streamId: string,
    decider: Decider<State, Command, Event>,
    command: Command,
    context: CommandContext,
    options: { readonly retries?: number } = {},
  ): Promise<CommandResult<Event>> {
    return recordFacts(
      this.store,
      streamId,
      decider,
      command,
      context,
      options.retries ?? this.config.commandRetries,
    );
  }

  /** The stream's folded state and revision, for a handler whose decision needs more than one stream. */
  load<State, Event extends DomainEvent>(
    streamId: string,
    decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>,
  ) {
    return loadState(this.store, streamId, decider, this.states);
  }
}
