// An App's credentials, apart from the App: a container App's registry credentials and an MCP server's bearer token,
// in a stream of their own whose events hold them sealed (ContentCipher, a data key of their own), so they are in no
// read model, no answer and no event in the clear, and destroying the key (when the App is deleted) erases them.
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { DomainEvent } from '#kernel';

type Id = { readonly appId: string };

export type AppCredentialsEvent =
  | DomainEvent<'AppRegistryCredentialsSet', Id & { readonly sealed: string }>
  | DomainEvent<'AppRegistryCredentialsRemoved', Id>
  | DomainEvent<'AppMcpBearerTokenSet', Id & { readonly sealed: string }>
  /** An MCP server's OAuth client: the one an admin pre-registered, or the one registered dynamically. */
  | DomainEvent<'AppMcpOAuthClientSet', Id & { readonly sealed: string }>;

export interface AppCredentialsState {
  /** The registry credentials, sealed. */
  readonly sealed: string | null;
  /** An MCP server's bearer token, sealed. */
  readonly bearerSealed?: string | null;
  /** An MCP server's OAuth client (`{ client, preRegistered }` as JSON), sealed. */
  readonly oauthClientSealed?: string | null;
}

export const appCredentialsStreamId = (appId: string): string => `app-credentials-${appId}`;
/** The data key the credentials are sealed under. */
export const appCredentialsKeyId = (appId: string): string => `app-credentials-${appId}`;

export const initialAppCredentialsState = (): AppCredentialsState => ({ sealed: null });

export function evolveAppCredentials(
  state: AppCredentialsState,
  event: AppCredentialsEvent,
): AppCredentialsState {
  switch (event.type) {
    case 'AppRegistryCredentialsSet':
      return { ...state, sealed: event.data.sealed };
    case 'AppRegistryCredentialsRemoved':
      return { ...state, sealed: null };
    case 'AppMcpBearerTokenSet':
      return { ...state, bearerSealed: event.data.sealed };
    case 'AppMcpOAuthClientSet':
      return { ...state, oauthClientSealed: event.data.sealed };
  }
}

/** What an admin gives for a private registry (Docker's X-Registry-Auth fields). */
export interface RegistryCredentials {
  readonly username: string;
  readonly password: string;
  readonly serveraddress?: string;
}

/** An MCP server's OAuth client as sealed: an admin's pre-registered one, or the one the platform registered. */
export interface StoredOAuthClient {
  readonly client: OAuthClientInformationMixed;
  readonly preRegistered: boolean;
}
