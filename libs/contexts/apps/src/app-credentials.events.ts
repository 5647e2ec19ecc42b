// A container App's registry credentials, apart from the App: a stream of their own whose events hold them sealed
// (ContentCipher, a data key of their own), so they are in no read model, no answer and no event in the clear, and
// destroying the key erases them.
import type { DomainEvent } from '#kernel';

type Id = { readonly appId: string };

export type AppCredentialsEvent =
  | DomainEvent<'AppRegistryCredentialsSet', Id & { readonly sealed: string }>
  | DomainEvent<'AppRegistryCredentialsRemoved', Id>;

export interface AppCredentialsState {
  readonly sealed: string | null;
}

export const appCredentialsStreamId = (appId: string): string => `app-credentials-${appId}`;
/** The data key the credentials are sealed under. */
export const appCredentialsKeyId = (appId: string): string => `app-credentials-${appId}`;

export const initialAppCredentialsState = (): AppCredentialsState => ({ sealed: null });

export const evolveAppCredentials = (
  _state: AppCredentialsState,
  event: AppCredentialsEvent,
): AppCredentialsState =>
  event.type === 'AppRegistryCredentialsSet' ? { sealed: event.data.sealed } : { sealed: null };

/** What an admin gives for a private registry (Docker's X-Registry-Auth fields). */
export interface RegistryCredentials {
  readonly username: string;
  readonly password: string;
  readonly serveraddress?: string;
}
