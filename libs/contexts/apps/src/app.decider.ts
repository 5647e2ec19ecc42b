// App commands and the pure decision over them: registration, renaming, enablement, token rotation, the outcome of
// reading `/meta` or starting the container, deletion. Repeating a command that changes nothing appends nothing.
import { ConflictError, NotFoundError, ValidationError } from '#kernel';
import type { Decider } from '#eventsourcing';
import {
  evolveApp,
  initialAppState,
  type AppEnablement,
  type AppEvent,
  type AppMeta,
  type AppSource,
  type AppState,
} from './app.events.js';
import type { McpOffer } from './mcp/mcp-offer.js';

export type AppCommand =
  | {
      readonly type: 'RegisterApp';
      readonly appId: string;
      readonly name: string;
      readonly source: AppSource;
      readonly enablement: AppEnablement;
      readonly tokenHash: string;
      /** What an MCP server offered, read before it is registered: both are recorded together or neither. */
      readonly mcpServer?: { readonly offer: McpOffer; readonly readAt: string };
    }
  | {
      readonly type: 'ChangeApp';
      readonly appId: string;
      readonly name?: string;
      readonly enablement?: AppEnablement;
    }
  | { readonly type: 'RotateAppToken'; readonly appId: string; readonly tokenHash: string }
  | {
      readonly type: 'RecordAppMeta';
      readonly appId: string;
      readonly outcome: { readonly meta: AppMeta } | { readonly error: string };
      readonly at: string;
    }
  | {
      readonly type: 'RecordAppContainer';
      readonly appId: string;
      readonly outcome:
        { readonly containerId: string; readonly upstreamUrl: string } | { readonly error: string };
      readonly at: string;
    }
  | {
      readonly type: 'RecordMcpServerOffer';
      readonly appId: string;
      readonly offer: McpOffer;
      readonly at: string;
    }
  | { readonly type: 'DeleteApp'; readonly appId: string };

const sameEnablement = (a: AppEnablement, b: AppEnablement): boolean =>
  a.kind === b.kind &&
  (a.kind === 'global' ||
    (b.kind === 'agents' &&
      a.agentIds.length === b.agentIds.length &&
      a.agentIds.every((id) => b.agentIds.includes(id))));

function checkName(name: string): void {
  if (name.trim().length === 0) throw new ValidationError('invalid_name', 'name must not be empty', 'name');
}

export function decideApp(command: AppCommand, state: AppState): AppEvent[] {
  const { appId } = command;
  if (command.type === 'RegisterApp') {
    if (state.status !== 'absent') throw new ConflictError('app_exists', `App '${appId}' already exists`);
    return registerApp(command);
  }
  if (state.status === 'absent') throw new NotFoundError('App', appId);
  if (state.status === 'deleted') {
    // A late outcome of reading /meta or starting the container for a deleted App changes nothing.
    if (
      command.type === 'DeleteApp' ||
      command.type === 'RecordAppMeta' ||
      command.type === 'RecordAppContainer' ||
      command.type === 'RecordMcpServerOffer'
    )
      return [];
    throw new NotFoundError('App', appId);
  }
  switch (command.type) {
    case 'ChangeApp': {
      const events: AppEvent[] = [];
      if (command.name !== undefined) {
        checkName(command.name);
        if (command.name.trim() !== state.name)
          events.push({ type: 'AppRenamed', data: { appId, name: command.name.trim() } });
      }
      if (command.enablement && !sameEnablement(command.enablement, state.enablement))
        events.push({ type: 'AppEnablementChanged', data: { appId, enablement: command.enablement } });
      return events;
    }
    case 'RotateAppToken':
      return [{ type: 'AppTokenRotated', data: { appId, tokenHash: command.tokenHash } }];
    case 'RecordAppMeta':
      return 'meta' in command.outcome
        ? [{ type: 'AppMetaRead', data: { appId, meta: command.outcome.meta, readAt: command.at } }]
        : [
            {
              type: 'AppMetaReadFailed',
              data: { appId, error: command.outcome.error, failedAt: command.at },
            },
          ];
    case 'RecordAppContainer':
      if ('error' in command.outcome)
        return [
          { type: 'AppContainerFailed', data: { appId, error: command.outcome.error, failedAt: command.at } },
        ];
      if (state.upstreamUrl === command.outcome.upstreamUrl) return [];
      return [{ type: 'AppContainerStarted', data: { appId, ...command.outcome } }];
    case 'RecordMcpServerOffer':
      return recordMcpServerOffer(command, state);
    case 'DeleteApp':
      return [{ type: 'AppDeleted', data: { appId } }];
  }
}

function registerApp(command: Extract<AppCommand, { type: 'RegisterApp' }>): AppEvent[] {
  const { appId, name, source, enablement, tokenHash, mcpServer } = command;
  checkName(name);
  // A server that signs in each person offers nothing before someone connects.
  const offerExpected = source.type === 'mcp' && source.auth !== 'oauth';
  if (mcpServer ? source.type !== 'mcp' : offerExpected)
    throw new ValidationError(
      'invalid_source',
      'an MCP server is registered with what it offers (unless it signs in each person), nothing else is',
    );
  const registered: AppEvent = {
    type: 'AppRegistered',
    data: { appId, name: name.trim(), source, enablement, tokenHash },
  };
  if (!mcpServer) return [registered];
  return [registered, { type: 'AppMcpServerRead', data: { appId, ...mcpServer } }];
}

/** A server read again records what it offers when that changed (tools, resources, prompts or its version). */
function recordMcpServerOffer(
  { appId, offer, at }: Extract<AppCommand, { type: 'RecordMcpServerOffer' }>,
  state: Extract<AppState, { status: 'active' | 'deleted' }>,
): AppEvent[] {
  if (state.source.type !== 'mcp')
    throw new ValidationError('not_an_mcp_app', `App '${appId}' is not an MCP server`);
  if (state.mcp && JSON.stringify(state.mcp) === JSON.stringify(offer)) return [];
  return [{ type: 'AppMcpServerRead', data: { appId, offer, readAt: at } }];
}

export const appDecider: Decider<AppState, AppCommand, AppEvent> = {
  initialState: initialAppState,
  evolve: evolveApp,
  decide: decideApp,
};
