// Opening or closing the people directory: an event only when the setting changes.
import type { Decider } from '#eventsourcing';
import type { PeopleDirectoryEvent } from './people-directory.events.js';

export interface PeopleDirectoryState {
  readonly open: boolean;
}

export type PeopleDirectoryCommand = { readonly type: 'SetPeopleDirectory'; readonly open: boolean };

export const peopleDirectoryDecider: Decider<
  PeopleDirectoryState,
  PeopleDirectoryCommand,
  PeopleDirectoryEvent
> = {
  initialState: () => ({ open: false }),
  evolve: (_state, event) => ({ open: event.type === 'PeopleDirectoryOpened' }),
  decide: (command, state) =>
    command.open === state.open
      ? []
      : [{ type: command.open ? 'PeopleDirectoryOpened' : 'PeopleDirectoryClosed', data: {} }],
};
