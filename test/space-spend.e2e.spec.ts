// A Space's weekly spend limit (issue 22 §5), as its owner, a member and a stranger meet it: the week starts at the
// Space's creation; every call made for an Agent of the Space counts toward it, whoever makes it, beside the key's and
// the user's limits (no scope skips another: LiteLLM #11962, #35076); `block` refuses at spend == limit (#33321) on
// conversation turns streamed or not and generate endpoints (#12794); `allow` reports the overage; calls outside the
// Space (the compatible API through the openai SDK) do not count toward it.
import OpenAI from 'openai';
import { client, CORE, ADMIN_KEY, startTestApi, uniqueName, type TestApi } from './support/api.js';

const WEEK_MS = 7 * 86_400_000;

interface SpaceSpend {
  spaceId: string;
  limit: { tokens: number | null; costUsd: number | null; overage: 'block' | 'allow' } | null;
  windowStart: string;
  resetsAt: string;
  used: { tokens: number; costUsd: number };
  overage: { tokens: number; costUsd: number };
}

describe("a Space's weekly spend limit (e2e)", () => {
  let api: TestApi;
  let spaceId: string;
  let spaceCreatedAt: string;
  let agentId: string;
  let userId: string;
  let member: { key: string; ownerUserId: string };
  const admin = () => client(api.url);
  const sdk = () => new OpenAI({ baseURL: `${api.url}/api/compat/v1`, apiKey: ADMIN_KEY, maxRetries: 0 });
  const limitOf = () => `${CORE}/cost-control/spaces/${spaceId}`;
  const spend = async () => (await admin().get<SpaceSpend>(limitOf())).body;
  const turn = (key = ADMIN_KEY, stream = false) =>
    fetch(`${api.url}${CORE}/llm/${agentId}/conversation`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'What is a volcano?', ...(stream ? { stream: true } : {}) }),
    });
  const generate = (key = ADMIN_KEY) =>
    client(api.url, key).post(`${CORE}/llm/${agentId}/generateText`, {
      messages: [{ role: 'user', content: 'hello there' }],
    });
  const refusedCode = async (response: Response) =>
    ((await response.json()) as { error: { code: string } }).error.code;

  beforeAll(async () => {
    api = await startTestApi();
    userId = (await admin().get<{ id: string }>(`${CORE}/users/me`)).body.id;
    const space = await admin().post<{ id: string; createdAt: string }>(`${CORE}/spaces`, {
      name: uniqueName('Budget'),
    });
    expect(space.status).toBe(201);
    spaceId = space.body.id;
    spaceCreatedAt = space.body.createdAt;
    const agent = await admin().post<{ id: string }>(`${CORE}/agents`, {
      spaceId,
      name: uniqueName('Agent'),
    });
    expect(agent.status).toBe(201);
    agentId = agent.body.id;
    const key = await admin().post<{ key: string; ownerUserId: string }>(`${CORE}/api-keys`, {
      name: uniqueName('member'),
      owner: { email: `space-spend-${Date.now()}@example.com` },
      agents: 'all',
    });
    expect(key.status).toBe(201);
    member = key.body;
    const joined = await admin().post(`${CORE}/spaces/${spaceId}/members`, {
      userId: member.ownerUserId,
      role: 'member',
    });
    expect(joined.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await api.close();
    expect(api.logs()).not.toContain('unhandled error');
  });

  it("counts the Space's week from its creation: resetsAt is the window start plus seven days", async () => {
    const set = await admin().put<SpaceSpend>(limitOf(), { tokens: 1_000_000, overage: 'block' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      spaceId,
      limit: { tokens: 1_000_000, costUsd: null, overage: 'block' },
    });
    expect(set.body.windowStart).toBe(spaceCreatedAt);
    expect(Date.parse(set.body.resetsAt) - Date.parse(set.body.windowStart)).toBe(WEEK_MS);
  });

  it("counts every call for the Space's Agents, whoever makes it, and no call outside the Space", async () => {
    const before = await spend();
    expect((await turn()).status).toBe(201);
    const afterOwner = await spend();
    expect(afterOwner.used.tokens).toBeGreaterThan(before.used.tokens);
    expect((await turn(member.key)).status).toBe(201);
    const afterMember = await spend();
    expect(afterMember.used.tokens).toBeGreaterThan(afterOwner.used.tokens);
    // The compatible API serves no Space.
    await sdk().chat.completions.create({
      model: 'offline-chat',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect((await spend()).used).toEqual(afterMember.used);
  });

  it('block: refuses at spend == limit for every member, on turns streamed or not and generate endpoints', async () => {
    const used = (await spend()).used.tokens;
    expect((await admin().put(limitOf(), { tokens: used, overage: 'block' })).status).toBe(200);
    for (const key of [ADMIN_KEY, member.key]) {
      const refused = await turn(key);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refusedCode(refused)).toBe('usage_limit_exceeded');
      const streamed = await turn(key, true);
      const events = await streamed.text();
      expect(events).toMatch(
        /event: error\ndata: \{"error":\{"type":"rate_limit_error","code":"usage_limit_exceeded"/,
      );
      expect(events).not.toContain('event: delta');
      const generated = await generate(key);
      expect(generated.status).toBe(429);
      expect(generated.body).toMatchObject({ error: { code: 'usage_limit_exceeded' } });
    }
    // Calls outside the Space go on (the openai SDK through the compatible API).
    const outside = await sdk().chat.completions.create({
      model: 'offline-chat',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(outside.choices[0]?.message.content).toBeTruthy();
    expect((await spend()).used.tokens).toBe(used);
  });

  it("no scope skips another: the user's limit still refuses a call the Space's admits, and the other way round", async () => {
    expect((await admin().put(limitOf(), { tokens: 10_000_000, overage: 'block' })).status).toBe(200);
    // A roomy user limit first: the user's week is then counted by this process, call by call.
    await admin().put(`${CORE}/cost-control/users/${userId}`, { tokens: 10_000_000, overage: 'block' });
    expect((await turn()).status).toBe(201);
    const me = await admin().get<{ used: { tokens: number } }>(`${CORE}/cost-control/users/me`);
    await admin().put(`${CORE}/cost-control/users/${userId}`, {
      tokens: me.body.used.tokens,
      overage: 'block',
    });
    expect((await turn()).status).toBe(429);
    const sdkRefusal = await sdk()
      .chat.completions.create({ model: 'offline-chat', messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(sdkRefusal).toBeInstanceOf(OpenAI.RateLimitError);
    // The member has no user limit: the Space's roomy limit admits them.
    expect((await turn(member.key)).status).toBe(201);
    await admin().delete(`${CORE}/cost-control/users/${userId}`);
    expect((await turn()).status).toBe(201);
  });

  it('allow: lets calls through past the limit and reports the overage', async () => {
    const used = (await spend()).used.tokens;
    await admin().put(limitOf(), { tokens: used, overage: 'allow' });
    expect((await turn(member.key)).status).toBe(201);
    const after = await spend();
    expect(after.overage.tokens).toBe(after.used.tokens - used);
    expect(after.overage.tokens).toBeGreaterThan(0);
  });

  it('members read the limit, only owners and admins set it, strangers do not see it; bad input is a 4xx', async () => {
    const asMember = client(api.url, member.key);
    expect((await asMember.get(limitOf())).status).toBe(200);
    const denied = await asMember.put(limitOf(), { tokens: 1_000_000_000, overage: 'block' });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: { code: 'space_change_denied' } });
    expect((await asMember.delete(limitOf())).status).toBe(403);
    const stranger = await admin().post<{ key: string }>(`${CORE}/api-keys`, {
      name: uniqueName('stranger'),
      owner: { email: `space-spend-stranger-${Date.now()}@example.com` },
      agents: 'all',
    });
    const asStranger = client(api.url, stranger.body.key);
    expect((await asStranger.get(limitOf())).status).toBe(404);
    expect((await asStranger.put(limitOf(), { tokens: 5, overage: 'block' })).status).toBe(404);
    expect((await admin().put(limitOf(), { overage: 'block' })).status).toBe(400);
    expect((await admin().put(limitOf(), { tokens: 5, overage: 'maybe' })).status).toBe(400);
    expect(
      (await admin().put(`${CORE}/cost-control/spaces/spc_nope`, { tokens: 5, overage: 'block' })).status,
    ).toBe(404);
    const removed = await admin().delete<SpaceSpend>(limitOf());
    expect(removed.status).toBe(200);
    expect(removed.body.limit).toBeNull();
    expect((await turn(member.key)).status).toBe(201);
  });

  it("only admins change or remove a limit an admin set; the Space's owners set and remove their own", async () => {
    const owner = await admin().post<{ key: string }>(`${CORE}/api-keys`, {
      name: uniqueName('owner'),
      owner: { email: `space-spend-owner-${Date.now()}@example.com` },
      agents: 'all',
    });
    const asOwner = client(api.url, owner.body.key);
    const own = await asOwner.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Capped') });
    expect(own.status).toBe(201);
    const limit = `${CORE}/cost-control/spaces/${own.body.id}`;
    expect((await asOwner.put(limit, { tokens: 500, overage: 'block' })).status).toBe(200);
    expect((await asOwner.put(limit, { tokens: 700, overage: 'block' })).status).toBe(200);
    expect((await admin().put(limit, { tokens: 100, overage: 'block' })).status).toBe(200);
    for (const lifted of [
      await asOwner.delete<{ error: { code: string } }>(limit),
      await asOwner.put<{ error: { code: string } }>(limit, { tokens: 10 ** 9, overage: 'allow' }),
    ])
      expect([lifted.status, lifted.body.error.code]).toEqual([403, 'spend_limit_set_by_admin']);
    expect((await asOwner.get<SpaceSpend>(limit)).body.limit).toMatchObject({ tokens: 100 });
    expect((await admin().delete(limit)).status).toBe(200);
    expect((await asOwner.put(limit, { tokens: 50, overage: 'block' })).status).toBe(200);
    expect((await asOwner.delete(limit)).status).toBe(200);
  });
});
