// One person's OAuth connection to an MCP App: commands and the pure decision over each. An authorization started
// replaces one still pending; it completes once, with the state it was started with and before it expires; a failed
// exchange ends it; refreshed tokens are recorded only while connected; disconnecting ends a connection or a pending
// authorization, and is nothing when there is neither.
import { decideByType, type Decider } from '#eventsourcing';
import { ValidationError } from '#kernel';
import {
  evolveAppOAuth,
  initialAppOAuthState,
  type AppOAuthEvent,
  type AppOAuthState,
} from './app-oauth.events.js';

type Id = { readonly appId: string; readonly userId: string };

export type AppOAuthCommand =
  | (Id & {
      readonly type: 'StartAppOAuth';
      readonly stateHash: string;
      readonly sealed: string;
      readonly expiresAt: string;
    })
  | (Id & {
      readonly type: 'CompleteAppOAuth';
      readonly stateHash: string;
      readonly sealed: string;
      readonly at: string;
    })
  | (Id & { readonly type: 'FailAppOAuth'; readonly stateHash: string; readonly reason: string })
  | (Id & { readonly type: 'RecordRefreshedAppOAuthTokens'; readonly sealed: string })
  | (Id & { readonly type: 'DisconnectAppOAuth' });

/** The pending authorization `stateHash` names, unexpired at `at`; 400 `invalid_state` or `authorization_expired` otherwise. */
export function pendingAuthorization(state: AppOAuthState, stateHash: string, at: string) {
  const { pending } = state;
  if (!pending || pending.stateHash !== stateHash)
    throw new ValidationError(
      'invalid_state',
      'No authorization of yours is waiting for this state',
      'state',
    );
  if (pending.expiresAt <= at)
    throw new ValidationError('authorization_expired', 'The authorization expired: connect again', 'state');
  return pending;
}

export const appOAuthDecider: Decider<AppOAuthState, AppOAuthCommand, AppOAuthEvent> = {
  initialState: initialAppOAuthState,
  evolve: evolveAppOAuth,
  decide: decideByType<AppOAuthState, AppOAuthCommand, AppOAuthEvent>({
    StartAppOAuth: ({ appId, userId, stateHash, sealed, expiresAt }) => [
      { type: 'AppOAuthAuthorizationStarted', data: { appId, userId, stateHash, sealed, expiresAt } },
    ],
    CompleteAppOAuth: ({ appId, userId, stateHash, sealed, at }, state) => {
      pendingAuthorization(state, stateHash, at);
      return [{ type: 'AppOAuthAccountConnected', data: { appId, userId, sealed, connectedAt: at } }];
    },
    FailAppOAuth: ({ appId, userId, stateHash, reason }, state) =>
      state.pending?.stateHash === stateHash
        ? [{ type: 'AppOAuthAuthorizationFailed', data: { appId, userId, reason: reason.slice(0, 300) } }]
        : [],
    RecordRefreshedAppOAuthTokens: ({ appId, userId, sealed }, state) =>
      state.tokensSealed === null
        ? []
        : [{ type: 'AppOAuthTokensRefreshed', data: { appId, userId, sealed } }],
    DisconnectAppOAuth: ({ appId, userId }, state) =>
      state.tokensSealed === null && state.pending === null
        ? []
        : [{ type: 'AppOAuthAccountDisconnected', data: { appId, userId } }],
  }),
};
