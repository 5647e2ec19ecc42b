// A replay run's one decision: it is recorded once (a retried request with the same key records nothing again).
import type { Decider } from '#eventsourcing';
import {
  evolveReplayRun,
  initialReplayRunState,
  type ReplayRunEvent,
  type ReplayRunState,
} from './replay-run.events.js';

export type RecordReplay = ReplayRunEvent['data'];

const recordReplay = (run: RecordReplay, state: ReplayRunState): ReplayRunEvent[] =>
  state.recorded ? [] : [{ type: 'ReplayRan', data: run }];

export const replayRunDecider: Decider<ReplayRunState, RecordReplay, ReplayRunEvent> = {
  initialState: initialReplayRunState,
  evolve: evolveReplayRun,
  decide: recordReplay,
};
