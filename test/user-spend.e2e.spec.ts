// Per-user weekly spend (issue 22 §5), as a user and an admin meet it: the week starts at the user's
// usageWindowStart and resets seven days later; `block` refuses at the limit on every model-calling path (compat chat
// streamed or not, embeddings, a conversation turn streamed or not); `allow` lets the call through and reports the
// excess as overage. The admin key's own user is the one limited here (a fresh API per suite).
import OpenAI from 'openai';
import { client, CORE, ADMIN_KEY, startTestApi, uniqueName, type TestApi } from './support/api.js';

const WEEK_MS = 7 * 86_400_000;

interface Spend {
  userId: string;
  limit: { tokens: number | null; costUsd: number | null; overage: 'block' | 'allow' } | null;
  windowStart: string;
  resetsAt: string;
  used: { tokens: number; costUsd: number };
  overage: { tokens: number; costUsd: number };
}

describe('per-user weekly spend (e2e)', () => {
  let api: TestApi;
  let userId: string;
  let agentId: string;
  const admin = () => client(api.url);
  const sdk = () => new OpenAI({ baseURL: `${api.url}/api/compat/v1`, apiKey: ADMIN_KEY, maxRetries: 0 });
  const spendOf = `${CORE}/cost-control/users`;
  const failureOf = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => error,
    );
  const chat = () =>
    sdk().chat.completions.create({
      model: 'offline-chat',
      messages: [{ role: 'user', content: 'hello there' }],
    });
  const stream = async () => {
    const chunks = await sdk().chat.completions.create({
      model: 'offline-chat',
      messages: [{ role: 'user', content: 'hello there' }],
      stream: true,
    });
    for await (const chunk of chunks) void chunk;
  };
  const embed = () => sdk().embeddings.create({ model: 'offline-embed', input: 'hello there' });
  const turn = (stream = false) =>
    fetch(`${api.url}${CORE}/llm/${agentId}/conversation`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'What is a volcano?', ...(stream ? { stream: true } : {}) }),
    });

  beforeAll(async () => {
    api = await startTestApi();
    const me = await admin().get<{ id: string }>(`${CORE}/users/me`);
    expect(me.status).toBe(200);
    userId = me.body.id;
    const space = await admin().post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Spend') });
    expect(space.status).toBe(201);
    const agent = await admin().post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: uniqueName('Agent'),
    });
    expect(agent.status).toBe(201);
    agentId = agent.body.id;
  }, 60_000);
  afterAll(async () => {
    await api.close();
    expect(api.logs()).not.toContain('unhandled error');
  });

  it("counts the user's week from their usageWindowStart: resetsAt is the window start plus seven days", async () => {
    const set = await admin().put<Spend>(`${spendOf}/${userId}`, { tokens: 1_000_000, overage: 'block' });
    expect(set.status).toBe(200);
    expect(set.body.limit).toEqual({ tokens: 1_000_000, costUsd: null, overage: 'block' });
    const users = await admin().get<{ data: { id: string; usageWindowStart?: string; createdAt: string }[] }>(
      `${CORE}/users`,
    );
    const user = users.body.data.find((candidate) => candidate.id === userId)!;
    const anchor = Date.parse(user.usageWindowStart ?? user.createdAt);
    const start = Date.parse(set.body.windowStart);
    expect(Date.parse(set.body.resetsAt) - start).toBe(WEEK_MS);
    expect((start - anchor) % WEEK_MS).toBe(0);
    expect(start).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(set.body.resetsAt)).toBeGreaterThan(Date.now());
  });

  it('block: refuses at the limit across chat, streaming, embeddings and conversation turns (429, Retry-After)', async () => {
    await admin().put(`${spendOf}/${userId}`, { tokens: 1_000_000, overage: 'block' });
    await chat();
    const before = await admin().get<Spend>(`${spendOf}/me`);
    expect(before.body.used.tokens).toBeGreaterThan(0);
    // Exactly at the limit: every call that would add a token is refused.
    const atLimit = await admin().put<Spend>(`${spendOf}/${userId}`, {
      tokens: before.body.used.tokens,
      overage: 'block',
    });
    expect(atLimit.status).toBe(200);
    for (const call of [chat, stream, embed]) {
      const failure = await failureOf(call());
      expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
      expect(failure).toMatchObject({ status: 429, code: 'usage_limit_exceeded' });
      const retryAfter = Number(
        (failure as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after'),
      );
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(WEEK_MS / 1000);
    }
    const refused = await turn();
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('usage_limit_exceeded');
    // A streamed turn has opened its event stream before the model is asked: the refusal is its error event.
    const streamed = await turn(true);
    expect(streamed.status).toBe(200);
    const events = await streamed.text();
    expect(events).toMatch(
      /event: error\ndata: \{"error":\{"type":"rate_limit_error","code":"usage_limit_exceeded"/,
    );
    expect(events).not.toContain('event: delta');
    // Raised: the calls go through again, from that moment.
    await admin().put(`${spendOf}/${userId}`, { tokens: 1_000_000, overage: 'block' });
    expect(await failureOf(chat())).toBeNull();
    expect(await failureOf(embed())).toBeNull();
    expect((await turn()).status).toBe(201);
  });

  it('allow: lets the call through past the limit and reports the overage', async () => {
    const now = await admin().get<Spend>(`${spendOf}/me`);
    await admin().put(`${spendOf}/${userId}`, { tokens: now.body.used.tokens, overage: 'allow' });
    expect(await failureOf(chat())).toBeNull();
    expect(await failureOf(stream())).toBeNull();
    const after = await admin().get<Spend>(`${spendOf}/${userId}`);
    expect(after.body.limit?.overage).toBe('allow');
    expect(after.body.overage.tokens).toBe(after.body.used.tokens - now.body.used.tokens);
    expect(after.body.overage.tokens).toBeGreaterThan(0);
    const all = await admin().get<{ data: Spend[] }>(spendOf);
    expect(all.body.data.find((entry) => entry.userId === userId)).toMatchObject({
      overage: after.body.overage,
    });
  });

  it('200 racing calls overshoot the limit by no more than one call’s estimate', async () => {
    const ask = () =>
      sdk().chat.completions.create({
        model: 'offline-chat',
        messages: [{ role: 'user', content: 'Tell me about volcanoes.' }],
        max_tokens: 40,
      });
    const probe = await ask();
    // The reservation of one call: its input (counted as the gateway counts it) plus its max_tokens.
    const estimate = probe.usage!.prompt_tokens + 40;
    const start = await admin().get<Spend>(`${spendOf}/me`);
    const limit = start.body.used.tokens + 50 * estimate + Math.floor(estimate / 2);
    await admin().put(`${spendOf}/${userId}`, { tokens: limit, overage: 'block' });
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, () =>
        ask().then(
          () => 'admitted',
          (error: unknown) =>
            (error as { code?: string }).code === 'usage_limit_exceeded' ? 'refused' : 'other',
        ),
      ),
    );
    const admitted = outcomes.filter((outcome) => outcome === 'admitted').length;
    const used = (await admin().get<Spend>(`${spendOf}/me`)).body.used.tokens;
    const overshoot = Math.max(0, used - limit);
    console.log(
      `200 racing chats: ${admitted} admitted, ${outcomes.filter((o) => o === 'refused').length} refused; ` +
        `used ${used} of ${limit} tokens, overshoot ${overshoot} (one call's estimate: ${estimate})`,
    );
    expect(outcomes).not.toContain('other');
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThan(200);
    expect(overshoot).toBeLessThanOrEqual(estimate);
  });

  it('lets a user read their own limit only; admins set them; bad input is a 4xx', async () => {
    const other = await admin().post<{ id: string; key: string; ownerUserId: string }>(`${CORE}/api-keys`, {
      name: uniqueName('other'),
      owner: { email: `spend-${Date.now()}@example.com` },
    });
    expect(other.status).toBe(201);
    const as = client(api.url, other.body.key);
    const own = await as.get<Spend>(`${spendOf}/me`);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ userId: other.body.ownerUserId, limit: null });
    expect((await as.get(`${spendOf}/${userId}`)).status).toBe(403);
    expect((await as.get(spendOf)).status).toBe(403);
    expect(
      (await as.put(`${spendOf}/${other.body.ownerUserId}`, { tokens: 1, overage: 'allow' })).status,
    ).toBe(403);
    expect((await admin().put(`${spendOf}/${other.body.ownerUserId}`, { overage: 'block' })).status).toBe(
      400,
    );
    expect(
      (await admin().put(`${spendOf}/${other.body.ownerUserId}`, { tokens: 5, overage: 'maybe' })).status,
    ).toBe(400);
    expect((await admin().put(`${spendOf}/usr_nope`, { tokens: 5, overage: 'block' })).status).toBe(404);
    const removed = await admin().delete<Spend>(`${spendOf}/${userId}`);
    expect(removed.body.limit).toBeNull();
  });
});
