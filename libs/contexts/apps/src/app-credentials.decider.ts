// An App's credentials' commands and the pure decision over each: registry credentials set (sealed) any time and
// removed once; an MCP server's bearer token and OAuth client set (sealed).
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveAppCredentials,
  initialAppCredentialsState,
  type AppCredentialsEvent,
  type AppCredentialsState,
} from './app-credentials.events.js';

export type AppCredentialsCommand =
  | { readonly type: 'SetAppRegistryCredentials'; readonly appId: string; readonly sealed: string }
  | { readonly type: 'RemoveAppRegistryCredentials'; readonly appId: string }
  | { readonly type: 'SetAppMcpBearerToken'; readonly appId: string; readonly sealed: string }
  | { readonly type: 'SetAppMcpOAuthClient'; readonly appId: string; readonly sealed: string };

type AppCredentialsOf<Type extends AppCredentialsCommand['type']> = Extract<
  AppCredentialsCommand,
  { readonly type: Type }
>;

const setCredentials = ({
  appId,
  sealed,
}: AppCredentialsOf<'SetAppRegistryCredentials'>): AppCredentialsEvent[] => [
  { type: 'AppRegistryCredentialsSet', data: { appId, sealed } },
];

const removeCredentials = (
  { appId }: AppCredentialsOf<'RemoveAppRegistryCredentials'>,
  state: AppCredentialsState,
): AppCredentialsEvent[] =>
  state.sealed === null ? [] : [{ type: 'AppRegistryCredentialsRemoved', data: { appId } }];

export const appCredentialsDecider: Decider<AppCredentialsState, AppCredentialsCommand, AppCredentialsEvent> =
  {
    initialState: initialAppCredentialsState,
    evolve: evolveAppCredentials,
    decide: decideByType<AppCredentialsState, AppCredentialsCommand, AppCredentialsEvent>({
      SetAppRegistryCredentials: setCredentials,
      RemoveAppRegistryCredentials: removeCredentials,
      SetAppMcpBearerToken: ({ appId, sealed }) => [
        { type: 'AppMcpBearerTokenSet', data: { appId, sealed } },
      ],
      SetAppMcpOAuthClient: ({ appId, sealed }) => [
        { type: 'AppMcpOAuthClientSet', data: { appId, sealed } },
      ],
    }),
  };
