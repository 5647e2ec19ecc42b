// The shape of every aggregate: a pure decider (decide + evolve, no I/O). The routine that loads, decides and appends
// is in command-handling.ts; the service handlers call it through is AggregateRepository.
import type { DomainEvent } from '#kernel';

/** A pure aggregate: `decide` returns events or throws a PlatformError; `evolve` never throws. */
export interface Decider<State, Command, Event extends DomainEvent> {
  readonly initialState: () => State;
  readonly evolve: (state: State, event: Event) => State;
  readonly decide: (command: Command, state: State) => readonly Event[];
}

/** One small decision per command type, as emmett's slices are: the compiler checks every command has one. */
export type DecisionsByCommand<State, Command extends { readonly type: string }, Event> = {
  readonly [Type in Command['type']]: (
    command: Extract<Command, { readonly type: Type }>,
    state: State,
  ) => readonly Event[];
};

/** A decider's `decide` that dispatches each command to its own decision. */
export const decideByType =
  <State, Command extends { readonly type: string }, Event>(
    decisions: DecisionsByCommand<State, Command, Event>,
  ) =>
  (command: Command, state: State): readonly Event[] =>
    (decisions[command.type as Command['type']] as (command: Command, state: State) => readonly Event[])(
      command,
      state,
    );
