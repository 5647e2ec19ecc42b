// The shape of every aggregate: a pure decider (decide + evolve, no I/O). The routine that loads, decides and appends
// is in command-handling.ts; the service handlers call it through is AggregateRepository.
import type { DomainEvent } from '#kernel';

/** A pure aggregate: `decide` returns events or throws a PlatformError; `evolve` never throws. */
export interface Decider<State, Command, Event extends DomainEvent> {
  readonly initialState: () => State;
  readonly evolve: (state: State, event: Event) => State;
  readonly decide: (command: Command, state: State) => readonly Event[];
}
