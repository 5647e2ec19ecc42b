// What the api answers for the web's pages, over plain HTTP: the API docs page and its assets cannot be framed and do
// not keep a pasted key; the old `/chat/{agentId}` is a real redirect to the Agent's Space route for a person whose
// session may use the Agent, and the app's page (which names no Space) for anyone else; the links of the invitation and
// password reset mails open pages of the app; the app's pages take images only from the instance's content routes.
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';
import { invitedPerson } from './web/browser.js';

describe('web pages over HTTP (e2e)', () => {
  let api: TestApi;
  let spaceId: string;
  let agentId: string;
  let member: { cookie: string };
  let outsider: { cookie: string };

  const get = (path: string, cookie?: string) =>
    fetch(`${api.url}${path}`, { redirect: 'manual', headers: cookie ? { cookie } : {} });

  beforeAll(async () => {
    api = await startTestApi();
    const admin = client(api.url, ADMIN_KEY);
    spaceId = (await admin.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Finance') })).body.id;
    const agent = await admin.post<{ id: string }>(`${CORE}/agents`, { spaceId, name: uniqueName('Ledger') });
    expect(agent.status).toBe(201);
    agentId = agent.body.id;
    const stamp = Date.now();
    const person = await invitedPerson(api.url, `member-${stamp}@example.com`);
    member = person;
    const membership = await admin.post(`${CORE}/spaces/${spaceId}/members`, {
      userId: person.userId,
      role: 'member',
    });
    expect(membership.status).toBe(201);
    outsider = await invitedPerson(api.url, `outsider-${stamp}@example.com`);
  }, 60_000);

  afterAll(async () => {
    await api?.close();
  });

  it('the API docs page and its assets: never framed (CSP and X-Frame-Options), the authorization not persisted', async () => {
    for (const path of [`${CORE}/docs`, `${CORE}/docs/init.js`, `${CORE}/docs/swagger-ui.css`]) {
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      const body = await response.text();
      if (path.endsWith('init.js')) expect(body).toContain('persistAuthorization: false');
    }
  });

  it('/chat/{agentId}: 302 to the Space route for a member of its Space, no Location and no Space for anyone else', async () => {
    const redirected = await get(`/chat/${agentId}`, member.cookie);
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('location')).toBe(`/space/${spaceId}/agent/${agentId}`);
    expect(redirected.headers.get('cache-control')).toBe('no-store');
    await redirected.text();
    // A link to an answer names its conversation and the answer: the redirect keeps them (and only them).
    const toAnswer = await get(`/chat/${agentId}?c=cnv_1&x=y&m=msg_2`, member.cookie);
    expect(toAnswer.headers.get('location')).toBe(`/space/${spaceId}/agent/${agentId}?c=cnv_1&m=msg_2`);
    await toAnswer.text();
    const toConversation = await get(`/chat/${agentId}?c=cnv_1&x=y`, member.cookie);
    expect(toConversation.headers.get('location')).toBe(`/space/${spaceId}/agent/${agentId}?c=cnv_1`);
    await toConversation.text();
    for (const [who, cookie, path] of [
      ['not in the Space', outsider.cookie, `/chat/${agentId}`],
      ['signed out', undefined, `/chat/${agentId}`],
      ['a forged session', 'ap_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', `/chat/${agentId}`],
      ['no such Agent', member.cookie, '/chat/agt_does_not_exist'],
    ] as const) {
      const page = await get(path, cookie);
      const body = await page.text();
      expect({ who, status: page.status, location: page.headers.get('location') }).toEqual({
        who,
        status: 200,
        location: null,
      });
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(body).not.toContain(spaceId);
    }
  });

  it("the mails' links are pages of the app (HTML, its CSP), open without a session", async () => {
    for (const path of ['/invitations/accept', '/password-reset']) {
      const page = await get(path);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await page.text()).toContain('<div id="app">');
    }
  });

  it("the app's pages load images only from the instance's content routes: not /app/, no other origin, no data:", async () => {
    for (const path of ['/', `/space/${spaceId}/agent/${agentId}`, '/invitations/accept']) {
      const page = await get(path);
      await page.text();
      const imgSrc = page.headers
        .get('content-security-policy')!
        .split('; ')
        .find((directive) => directive.startsWith('img-src'));
      expect(imgSrc).toBe(
        `img-src ${api.url}${CORE}/knowledge/ ${api.url}${CORE}/llm/ ${api.url}/favicon.svg`,
      );
    }
  });
});
