import { deciderSpec } from '#testing/decider-spec';
import type { AppCredentialsEvent } from './app-credentials.events.js';
import { appCredentialsDecider } from './app-credentials.decider.js';

const given = deciderSpec(appCredentialsDecider);
const set = (sealed: string): AppCredentialsEvent => ({
  type: 'AppRegistryCredentialsSet',
  data: { appId: 'app_1', sealed },
});
const removed: AppCredentialsEvent = { type: 'AppRegistryCredentialsRemoved', data: { appId: 'app_1' } };

describe("an App's registry credentials (decider)", () => {
  it('are set, and set again when replaced', () => {
    given()
      .when({ type: 'SetAppRegistryCredentials', appId: 'app_1', sealed: 's1' })
      .then([set('s1')]);
    given(set('s1'))
      .when({ type: 'SetAppRegistryCredentials', appId: 'app_1', sealed: 's2' })
      .then([set('s2')]);
  });

  it('are removed once, and removing none records nothing', () => {
    given(set('s1')).when({ type: 'RemoveAppRegistryCredentials', appId: 'app_1' }).then([removed]);
    given(set('s1'), removed).when({ type: 'RemoveAppRegistryCredentials', appId: 'app_1' }).then([]);
    given().when({ type: 'RemoveAppRegistryCredentials', appId: 'app_1' }).then([]);
  });

  it("set an MCP server's bearer token apart from registry credentials", () => {
    given(set('s1'))
      .when({ type: 'SetAppMcpBearerToken', appId: 'app_1', sealed: 'b1' })
      .then([{ type: 'AppMcpBearerTokenSet', data: { appId: 'app_1', sealed: 'b1' } }]);
  });

  it("set an MCP server's OAuth client apart from its other credentials", () => {
    given(set('s1'))
      .when({ type: 'SetAppMcpOAuthClient', appId: 'app_1', sealed: 'c1' })
      .then([{ type: 'AppMcpOAuthClientSet', data: { appId: 'app_1', sealed: 'c1' } }]);
  });
});
