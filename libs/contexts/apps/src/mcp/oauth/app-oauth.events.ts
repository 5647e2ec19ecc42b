// One person's OAuth connection to one MCP App, a stream per (App, person): the authorization they started (a hash
// of its state, its PKCE verifier sealed, when it expires), their tokens sealed once the code is exchanged and again
// when refreshed, and the disconnection. Everything secret is sealed under a data key of this connection alone
// (`appOAuthKeyId`, filed under the App's group), so disconnecting, or deleting the App, erases it from every copy
// of the log while the log keeps who connected when.
import type { DomainEvent } from '#kernel';

type Id = { readonly appId: string; readonly userId: string };

export type AppOAuthEvent =
  | DomainEvent<
      'AppOAuthAuthorizationStarted',
      Id & {
        /** SHA-256 (hex) of the state sent to the authorization server: the state itself is a credential. */
        readonly stateHash: string;
        /** The PKCE verifier, where the discovery ended and where to send the person back, sealed. */
        readonly sealed: string;
        readonly expiresAt: string;
      }
    >
  | DomainEvent<'AppOAuthAuthorizationFailed', Id & { readonly reason: string }>
  | DomainEvent<'AppOAuthAccountConnected', Id & { readonly sealed: string; readonly connectedAt: string }>
  | DomainEvent<'AppOAuthTokensRefreshed', Id & { readonly sealed: string }>
  | DomainEvent<'AppOAuthAccountDisconnected', Id>;

export interface AppOAuthState {
  readonly pending: {
    readonly stateHash: string;
    readonly sealed: string;
    readonly expiresAt: string;
  } | null;
  /** The tokens, sealed; null before a connection and after a disconnection. */
  readonly tokensSealed: string | null;
  readonly connectedAt: string | null;
  /** Disconnections so far: each connection has a data key of its own, destroyed when it ends. */
  readonly generation: number;
}

export const appOAuthStreamId = (appId: string, userId: string): string => `app-oauth-${appId}-${userId}`;
export const appOAuthKeyId = (appId: string, userId: string, generation: number): string =>
  `app-oauth-${appId}-${userId}-${generation}`;
/** Every person's connection keys of an App: destroyed with the App. */
export const appOAuthKeyGroup = (appId: string): string => `app-oauth-${appId}`;

export const initialAppOAuthState = (): AppOAuthState => ({
  pending: null,
  tokensSealed: null,
  connectedAt: null,
  generation: 0,
});

export function evolveAppOAuth(state: AppOAuthState, event: AppOAuthEvent): AppOAuthState {
  switch (event.type) {
    case 'AppOAuthAuthorizationStarted': {
      const { stateHash, sealed, expiresAt } = event.data;
      return { ...state, pending: { stateHash, sealed, expiresAt } };
    }
    case 'AppOAuthAuthorizationFailed':
      return { ...state, pending: null };
    case 'AppOAuthAccountConnected':
      return {
        ...state,
        pending: null,
        tokensSealed: event.data.sealed,
        connectedAt: event.data.connectedAt,
      };
    case 'AppOAuthTokensRefreshed':
      return { ...state, tokensSealed: event.data.sealed };
    case 'AppOAuthAccountDisconnected':
      return {
        ...state,
        pending: null,
        tokensSealed: null,
        connectedAt: null,
        generation: state.generation + 1,
      };
  }
}
