// The given/when/then of a decider spec: given these events, when this command, then these events (or this error).
import type { DomainEvent } from '#kernel';
import type { Decider } from '#eventsourcing';

export const deciderSpec =
  <State, Command, Event extends DomainEvent>(decider: Decider<State, Command, Event>) =>
  (...events: Event[]) => ({
    when: (command: Command) => {
      const state = events.reduce(decider.evolve, decider.initialState());
      return {
        then: (expected: Event[]) => expect(decider.decide(command, state)).toEqual(expected),
        thenThrows: (code: string) =>
          expect(() => decider.decide(command, state)).toThrow(expect.objectContaining({ code })),
      };
    },
  });
