import { deciderSpec } from '#testing/decider-spec';
import { appDecider } from './app.decider.js';
import type { AppEvent } from './app.events.js';

const given = deciderSpec(appDecider);

const registered: AppEvent = {
  type: 'AppRegistered',
  data: {
    appId: 'app_1',
    name: 'Notes',
    source: { type: 'url', url: 'http://127.0.0.1:5000' },
    enablement: { kind: 'agents', agentIds: ['a1'] },
    tokenHash: 'h1',
  },
};
const meta = { id: 'notes', name: 'Notes', standalone: false, views: [], tools: [] };

describe('App decider', () => {
  it('registers an App once', () => {
    given()
      .when({
        type: 'RegisterApp',
        appId: 'app_1',
        name: ' Notes ',
        source: { type: 'url', url: 'http://127.0.0.1:5000' },
        enablement: { kind: 'agents', agentIds: ['a1'] },
        tokenHash: 'h1',
      })
      .then([registered]);
    given(registered)
      .when({ ...(registered.data as object), type: 'RegisterApp' } as never)
      .thenThrows('app_exists');
  });

  it('records one fact per change, and nothing when nothing changes (same Agents in another order)', () => {
    given({
      ...registered,
      data: { ...registered.data, enablement: { kind: 'agents', agentIds: ['a1', 'a2'] } },
    })
      .when({
        type: 'ChangeApp',
        appId: 'app_1',
        name: 'Notes',
        enablement: { kind: 'agents', agentIds: ['a2', 'a1'] },
      })
      .then([]);
    given(registered)
      .when({ type: 'ChangeApp', appId: 'app_1', name: 'Board', enablement: { kind: 'global' } })
      .then([
        { type: 'AppRenamed', data: { appId: 'app_1', name: 'Board' } },
        { type: 'AppEnablementChanged', data: { appId: 'app_1', enablement: { kind: 'global' } } },
      ]);
    given(registered).when({ type: 'ChangeApp', appId: 'app_1', name: '  ' }).thenThrows('invalid_name');
  });

  it('records what /meta said, or why it failed (lastError), and a container outcome once', () => {
    given(registered)
      .when({ type: 'RecordAppMeta', appId: 'app_1', outcome: { meta }, at: 't1' })
      .then([{ type: 'AppMetaRead', data: { appId: 'app_1', meta, readAt: 't1' } }]);
    given(registered)
      .when({ type: 'RecordAppMeta', appId: 'app_1', outcome: { error: '/meta answered 500' }, at: 't1' })
      .then([
        { type: 'AppMetaReadFailed', data: { appId: 'app_1', error: '/meta answered 500', failedAt: 't1' } },
      ]);
    const started: AppEvent = {
      type: 'AppContainerStarted',
      data: { appId: 'app_1', containerId: 'c1', upstreamUrl: 'http://127.0.0.1:7000' },
    };
    given(registered, started)
      .when({
        type: 'RecordAppContainer',
        appId: 'app_1',
        outcome: { containerId: 'c1', upstreamUrl: 'http://127.0.0.1:7000' },
        at: 't2',
      })
      .then([]);
  });

  it('rotates the token; a deleted App is gone, and late outcomes for it change nothing', () => {
    given(registered)
      .when({ type: 'RotateAppToken', appId: 'app_1', tokenHash: 'h2' })
      .then([{ type: 'AppTokenRotated', data: { appId: 'app_1', tokenHash: 'h2' } }]);
    const deleted: AppEvent = { type: 'AppDeleted', data: { appId: 'app_1' } };
    given(registered, deleted)
      .when({ type: 'RotateAppToken', appId: 'app_1', tokenHash: 'h3' })
      .thenThrows('app_not_found');
    given(registered, deleted)
      .when({ type: 'RecordAppMeta', appId: 'app_1', outcome: { meta }, at: 't3' })
      .then([]);
    given(registered, deleted).when({ type: 'DeleteApp', appId: 'app_1' }).then([]);
    given().when({ type: 'DeleteApp', appId: 'app_2' }).thenThrows('app_not_found');
  });

  describe('an MCP server', () => {
    const source = { type: 'mcp', url: 'http://127.0.0.1:3001/mcp', auth: 'bearer' } as const;
    const offer = {
      server: { name: 'everything', version: '1.0.0' },
      tools: [{ name: 'echo', description: 'Echoes', inputSchema: { type: 'object' } }],
      resources: [],
      prompts: [],
    };
    const mcpRegistered: AppEvent = { ...registered, data: { ...registered.data, source } } as AppEvent;
    const read = (o: typeof offer, readAt: string): AppEvent => ({
      type: 'AppMcpServerRead',
      data: { appId: 'app_1', offer: o, readAt },
    });
    const register = {
      type: 'RegisterApp',
      appId: 'app_1',
      name: 'Notes',
      source,
      enablement: { kind: 'agents', agentIds: ['a1'] },
      tokenHash: 'h1',
    } as const;

    it('is registered together with what it offers, and only with it', () => {
      given()
        .when({ ...register, mcpServer: { offer, readAt: 't1' } })
        .then([mcpRegistered, read(offer, 't1')]);
      given().when(register).thenThrows('invalid_source');
      given()
        .when({ ...register, source: registered.data.source as never, mcpServer: { offer, readAt: 't1' } })
        .thenThrows('invalid_source');
    });

    it('that signs in each person is registered without an offer, read when someone connects', () => {
      const oauth = { ...source, auth: 'oauth', scopes: ['tools'] } as const;
      given()
        .when({ ...register, source: oauth })
        .then([{ ...mcpRegistered, data: { ...mcpRegistered.data, source: oauth } } as AppEvent]);
      given({ ...mcpRegistered, data: { ...mcpRegistered.data, source: oauth } } as AppEvent)
        .when({ type: 'RecordMcpServerOffer', appId: 'app_1', offer, at: 't2' })
        .then([read(offer, 't2')]);
    });

    it('records its offer again only when it changed', () => {
      const changed = { ...offer, server: { name: 'everything', version: '2.0.0' } };
      given(mcpRegistered, read(offer, 't1'))
        .when({ type: 'RecordMcpServerOffer', appId: 'app_1', offer, at: 't2' })
        .then([]);
      given(mcpRegistered, read(offer, 't1'))
        .when({ type: 'RecordMcpServerOffer', appId: 'app_1', offer: changed, at: 't2' })
        .then([read(changed, 't2')]);
      given(registered)
        .when({ type: 'RecordMcpServerOffer', appId: 'app_1', offer, at: 't2' })
        .thenThrows('not_an_mcp_app');
      given(mcpRegistered, { type: 'AppDeleted', data: { appId: 'app_1' } })
        .when({ type: 'RecordMcpServerOffer', appId: 'app_1', offer, at: 't2' })
        .then([]);
    });
  });
});
