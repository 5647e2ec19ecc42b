// A replay run from the web app or the API: who replayed which recorded turns against which model, and how many were
// replayed (one stream per run, `replay-<replayId>`). The answers themselves are not in the log: the old ones are the
// conversations' (sealed there), the new ones are the report the caller received.
import type { DomainEvent } from '#kernel';

export type ReplayRunEvent = DomainEvent<
  'ReplayRan',
  {
    readonly replayId: string;
    readonly model: string;
    readonly retrieval: 'recorded' | 're-retrieved';
    readonly selection: {
      readonly agentId?: string;
      readonly from?: string;
      readonly to?: string;
      readonly messageIds?: readonly string[];
      readonly limit?: number;
    };
    /** The answers replayed (their message ids), in order. */
    readonly messageIds: readonly string[];
    readonly replayed: number;
  }
>;

export interface ReplayRunState {
  readonly recorded: boolean;
}

export const replayRunStreamId = (replayId: string): string => `replay-${replayId}`;

export const initialReplayRunState = (): ReplayRunState => ({ recorded: false });

export const evolveReplayRun = (_state: ReplayRunState, _event: ReplayRunEvent): ReplayRunState => ({
  recorded: true,
});
