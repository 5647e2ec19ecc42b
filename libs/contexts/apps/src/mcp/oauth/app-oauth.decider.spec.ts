import { deciderSpec } from '#testing/decider-spec';
import type { AppOAuthEvent } from './app-oauth.events.js';
import { appOAuthDecider } from './app-oauth.decider.js';

const given = deciderSpec(appOAuthDecider);
const id = { appId: 'app_1', userId: 'usr_1' };
const started: AppOAuthEvent = {
  type: 'AppOAuthAuthorizationStarted',
  data: { ...id, stateHash: 'h1', sealed: 'v1', expiresAt: '2026-01-01T00:10:00.000Z' },
};
const connected: AppOAuthEvent = {
  type: 'AppOAuthAccountConnected',
  data: { ...id, sealed: 't1', connectedAt: '2026-01-01T00:01:00.000Z' },
};
const complete = (stateHash: string, at = '2026-01-01T00:01:00.000Z') =>
  ({ type: 'CompleteAppOAuth', ...id, stateHash, sealed: 't1', at }) as const;

describe("a person's OAuth connection to an MCP App (decider)", () => {
  it('completes the authorization it started, once, with its state and before it expires', () => {
    given(started).when(complete('h1')).then([connected]);
    given(started, connected).when(complete('h1')).thenThrows('invalid_state');
    given(started).when(complete('h2')).thenThrows('invalid_state');
    given(started).when(complete('h1', '2026-01-01T00:10:00.000Z')).thenThrows('authorization_expired');
    given().when(complete('h1')).thenThrows('invalid_state');
  });

  it('ends a pending authorization whose exchange failed, and nothing else', () => {
    given(started)
      .when({ type: 'FailAppOAuth', ...id, stateHash: 'h1', reason: 'invalid_grant' })
      .then([{ type: 'AppOAuthAuthorizationFailed', data: { ...id, reason: 'invalid_grant' } }]);
    given(started)
      .when({ type: 'FailAppOAuth', ...id, stateHash: 'h2', reason: 'x' })
      .then([]);
  });

  it('records refreshed tokens only while connected', () => {
    const refresh = { type: 'RecordRefreshedAppOAuthTokens', ...id, sealed: 't2' } as const;
    given(started, connected)
      .when(refresh)
      .then([{ type: 'AppOAuthTokensRefreshed', data: { ...id, sealed: 't2' } }]);
    given(started).when(refresh).then([]);
  });

  it('disconnects a connection or a pending authorization, and nothing when there is neither', () => {
    const disconnect = { type: 'DisconnectAppOAuth', ...id } as const;
    const disconnected: AppOAuthEvent = { type: 'AppOAuthAccountDisconnected', data: id };
    given(started, connected).when(disconnect).then([disconnected]);
    given(started).when(disconnect).then([disconnected]);
    given(started, connected, disconnected).when(disconnect).then([]);
  });
});
