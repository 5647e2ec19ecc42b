// What ends every session of a person (issue 42, item 5): a completed password reset, an admin-issued reset and a
// demotion from admin to member. Each time the session cookie and the App session token (`svc_session_token`) the
// App proxy derived from it answer before and are refused after, and the log records why the sessions ended.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EVENT_STORE, type EventStore } from '#event-store';
import { waitUntil } from '#testing/fixtures';
import { client, CORE, startTestApi, type TestApi } from './support/api.js';

const PASSWORD = 'a long passphrase that ends sessions';
const NEW_PASSWORD = 'another long passphrase, reset';

/** An App that answers every request and keeps the svc_session_token the proxy sent it. */
function startApp(): Promise<{ url: string; tokens: string[]; server: Server }> {
  const tokens: string[] = [];
  const server = createServer((request, response) => {
    if (request.url === '/meta') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'ends' }));
      return;
    }
    const token = request.headers.svc_session_token;
    if (typeof token === 'string') tokens.push(token);
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tokens, server }),
    ),
  );
}

describe('a password reset and a demotion end every session and its App tokens (e2e)', () => {
  let api: TestApi;
  let app: Awaited<ReturnType<typeof startApp>>;
  const admin = () => client(api.url);

  beforeAll(async () => {
    api = await startTestApi();
    app = await startApp();
  });
  afterAll(async () => {
    await api.close();
    app.server.closeAllConnections();
    app.server.close();
  });

  /** A member of a Space whose Agent an App is enabled for. */
  const person = async (label: string) => {
    const email = `${label}-${Date.now()}@example.com`;
    const invitation = await admin().post<{ link: string }>(`${CORE}/invitations`, { email, role: 'member' });
    const token = decodeURIComponent(invitation.body.link.split('#token=')[1]!);
    const accepted = await client(api.url, null).post<{ id: string }>(`${CORE}/invitations/accept`, {
      token,
      name: label,
      password: PASSWORD,
    });
    expect(accepted.status).toBe(201);
    const userId = accepted.body.id;
    const space = await admin().post<{ id: string }>(`${CORE}/spaces`, { name: `${label} space` });
    await admin().post(`${CORE}/spaces/${space.body.id}/members`, { userId, role: 'member' });
    const agent = await admin().post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: label,
    });
    const registered = await admin().post<{ id: string }>(`${CORE}/apps`, {
      name: `${label} app`,
      source: { type: 'url', url: app.url },
      enablement: { kind: 'agents', agentIds: [agent.body.id] },
    });
    expect(registered.status).toBe(201);
    return { email, userId, agentId: agent.body.id, appId: registered.body.id };
  };

  const signIn = async (email: string, password = PASSWORD) => {
    const response = await fetch(`${api.url}${CORE}/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(response.status).toBe(200);
    return /ap_session=[A-Za-z0-9_-]+/.exec(response.headers.get('set-cookie') ?? '')![0];
  };

  /** The session cookie and an App session token the proxy derived from it, both answering 200. */
  const signedIn = async (who: Awaited<ReturnType<typeof person>>, password = PASSWORD) => {
    const cookie = await signIn(who.email, password);
    const before = app.tokens.length;
    const viewed = await fetch(`${api.url}/app/${who.appId}/user`, { headers: { cookie } });
    expect(viewed.status).toBe(200);
    await viewed.text();
    const appToken = app.tokens.slice(before).at(-1)!;
    expect(appToken).toMatch(/^svc_/);
    const credentials = { cookie, appToken };
    await waitUntil(async () => (await statuses(who, credentials)).appToken === 200);
    expect(await statuses(who, credentials)).toEqual({ cookie: 200, appToken: 200 });
    return credentials;
  };

  const statuses = async (
    who: { agentId: string },
    { cookie, appToken }: { cookie: string; appToken: string },
  ) => ({
    cookie: (await fetch(`${api.url}${CORE}/users/me`, { headers: { cookie } })).status,
    appToken: (
      await fetch(`${api.url}/api/v1/bridge/agents/${who.agentId}`, {
        headers: { authorization: `Bearer ${appToken}` },
      })
    ).status,
  });

  const endedBecause = async (userId: string) =>
    (await api.app.get<EventStore>(EVENT_STORE).readAll())
      .filter((event) => event.type === 'UserSignedOutEverywhere')
      .map((event) => event.data as { userId: string; reason?: string })
      .filter((data) => data.userId === userId)
      .map((data) => data.reason);

  it('an admin-issued reset, then the completed reset, each end the sessions and App tokens of the person', async () => {
    const ada = await person('ada');
    const first = await signedIn(ada);
    const issued = await admin().post<{ link: string }>(`${CORE}/users/${ada.userId}/password-reset`);
    expect(issued.status).toBe(201);
    expect(await statuses(ada, first)).toEqual({ cookie: 401, appToken: 401 });

    const second = await signedIn(ada);
    const token = decodeURIComponent(issued.body.link.split('#token=')[1]!);
    const reset = await client(api.url, null).post(`${CORE}/auth/password-reset`, {
      token,
      password: NEW_PASSWORD,
    });
    expect(reset.status).toBe(204);
    expect(await statuses(ada, second)).toEqual({ cookie: 401, appToken: 401 });
    // A new sign-in with the new password works.
    await signedIn(ada, NEW_PASSWORD);
    expect(await endedBecause(ada.userId)).toEqual(['passwordResetIssued', 'passwordReset']);
  });

  it('a demotion from admin to member ends the sessions and App tokens of the person; a promotion does not', async () => {
    const bo = await person('bo');
    const asMember = await signedIn(bo);
    expect((await admin().patch(`${CORE}/users/${bo.userId}`, { role: 'admin' })).status).toBe(200);
    expect(await statuses(bo, asMember)).toEqual({ cookie: 200, appToken: 200 });
    const asAdmin = await signedIn(bo);
    expect((await admin().patch(`${CORE}/users/${bo.userId}`, { role: 'member' })).status).toBe(200);
    expect(await statuses(bo, asAdmin)).toEqual({ cookie: 401, appToken: 401 });
    expect(await statuses(bo, asMember)).toEqual({ cookie: 401, appToken: 401 });
    expect(await endedBecause(bo.userId)).toEqual(['demoted']);
  });
});
