// The session's commands and the pure decision over each (started once, refreshed and revoked while active), and
// the record of a failed sign-in, which nothing refuses.
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveSession,
  initialSessionState,
  type SessionEvent,
  type SessionMethod,
  type SessionState,
  type SignInEvent,
} from './session.events.js';
import type { ChangeSource } from './user.events.js';

export type SessionCommand =
  | {
      readonly type: 'StartSession';
      readonly sessionId: string;
      readonly userId: string;
      readonly method: SessionMethod;
      readonly providerId?: string;
      readonly expiresAt: string;
      readonly source: ChangeSource;
    }
  | { readonly type: 'RefreshSession'; readonly sessionId: string }
  | { readonly type: 'RevokeSession'; readonly sessionId: string; readonly source: ChangeSource };

type SessionOf<Type extends SessionCommand['type']> = Extract<SessionCommand, { readonly type: Type }>;

function startSession(command: SessionOf<'StartSession'>, state: SessionState): SessionEvent[] {
  if (state.status !== 'absent') return [];
  const { type: _type, ...data } = command;
  return [{ type: 'SessionStarted', data }];
}

const refreshSession = ({ sessionId }: SessionOf<'RefreshSession'>, state: SessionState): SessionEvent[] =>
  state.status === 'active' ? [{ type: 'SessionRefreshed', data: { sessionId } }] : [];

const revokeSession = (
  { sessionId, source }: SessionOf<'RevokeSession'>,
  state: SessionState,
): SessionEvent[] =>
  state.status === 'active'
    ? [{ type: 'SessionRevoked', data: { sessionId, reason: 'signOut', source } }]
    : [];

export const sessionDecider: Decider<SessionState, SessionCommand, SessionEvent> = {
  initialState: initialSessionState,
  evolve: evolveSession,
  decide: decideByType<SessionState, SessionCommand, SessionEvent>({
    StartSession: startSession,
    RefreshSession: refreshSession,
    RevokeSession: revokeSession,
  }),
};

export const signInDecider: Decider<null, SignInEvent['data'], SignInEvent> = {
  initialState: () => null,
  evolve: () => null,
  decide: (data) => [{ type: 'SignInFailed', data }],
};
