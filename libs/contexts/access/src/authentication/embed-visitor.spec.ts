import { loadConfig } from '#kernel';
import { InProcessRateLimitStore } from '#rate-limit-store/in-process/in-process-rate-limit-store';
import { EmbedRateLimits, EmbedRateLimitedError, EmbedVisitorSessions } from './embed-visitor.js';

const config = (env: Record<string, string> = {}) =>
  loadConfig({ DATA_DIR: '/tmp/embed-visitor-spec', EMBED_SESSION_MINUTES: '60', ...env });

describe('embed visitor sessions', () => {
  const sessions = new EmbedVisitorSessions(config());

  it('issues a session bound to one Agent that verifies until it expires', () => {
    const now = Date.UTC(2026, 0, 1);
    const { token, session } = sessions.issue('agt_1', 0, {}, now);
    expect(session.agentId).toBe('agt_1');
    expect(session.expiresAt).toBe(now + 60 * 60_000);
    expect(sessions.verify(token, now + 1000)).toEqual(session);
    expect(sessions.verify(token, session.expiresAt)).toBeNull();
    // Embed session minutes longer than the default keep the session as long.
    expect(sessions.issue('agt_1', 120 * 60_000, {}, now).session.expiresAt).toBe(now + 120 * 60_000);
  });

  it("carries the Agent's limits, each unset one the instance default", () => {
    const { token } = sessions.issue('agt_1', 0, { visitorMessagesPerMinute: 2, dailyCostUsd: null });
    expect(sessions.verify(token)?.limits).toEqual({
      visitorMessagesPerMinute: 2,
      agentMessagesPerMinute: 120,
      dailyCostUsd: 5,
    });
  });

  it('refuses a forged, altered or foreign token', () => {
    const { token } = sessions.issue('agt_1', 0);
    const [payload, signature] = token.split('.') as [string, string];
    const altered = Buffer.from(
      Buffer.from(payload, 'base64url').toString().replace('agt_1', 'agt_2'),
    ).toString('base64url');
    expect(sessions.verify(`${altered}.${signature}`)).toBeNull();
    expect(sessions.verify(`${payload}.${signature.slice(0, -2)}xx`)).toBeNull();
    expect(sessions.verify('garbage')).toBeNull();
    expect(sessions.verify(`${payload}.${signature}.extra`)).toBeNull();
    // Another instance (another secret) does not accept it; one sharing EMBED_SESSION_SECRET does.
    expect(new EmbedVisitorSessions(config()).verify(token)).toBeNull();
    const secret = { EMBED_SESSION_SECRET: 'a-shared-secret-of-at-least-32-chars!' };
    const shared = new EmbedVisitorSessions(config(secret)).issue('agt_1', 0).token;
    expect(new EmbedVisitorSessions(config(secret)).verify(shared)?.agentId).toBe('agt_1');
  });
});

describe('embed rate limits', () => {
  const visitor = (visitorId: string) => ({
    agentId: 'agt_1',
    visitorId,
    expiresAt: Infinity,
    limits: { visitorMessagesPerMinute: 2, agentMessagesPerMinute: 3, dailyCostUsd: 5 },
  });
  const now = 1_000_000;

  it("allows the session's messages a minute per visitor and per Agent, then 429 with Retry-After", async () => {
    const limits = new EmbedRateLimits(new InProcessRateLimitStore());
    await limits.take(visitor('a'), now);
    await limits.take(visitor('a'), now + 1);
    const refused = limits.take(visitor('a'), now + 2);
    await expect(refused).rejects.toThrow(EmbedRateLimitedError);
    await expect(refused).rejects.toMatchObject({
      code: 'visitor_rate_limited',
      headers: { 'retry-after': '60' },
    });
    await limits.take(visitor('b'), now + 3);
    // The Agent's minute is full (3): another visitor is refused too.
    await expect(limits.take(visitor('c'), now + 4)).rejects.toThrow(/busy/);
    // A minute later the window has moved on.
    await limits.take(visitor('a'), now + 60_001);
  });

  it('one store shared by two api processes: the limits count the messages both took', async () => {
    const store = new InProcessRateLimitStore();
    const [first, second] = [new EmbedRateLimits(store), new EmbedRateLimits(store)];
    await first.take(visitor('a'), now);
    await second.take(visitor('a'), now + 1);
    await expect(first.take(visitor('a'), now + 2)).rejects.toMatchObject({ code: 'visitor_rate_limited' });
    await second.take(visitor('b'), now + 3);
    // A refused message was not counted: the Agent's minute holds the three taken.
    await expect(first.take(visitor('c'), now + 4)).rejects.toMatchObject({ code: 'agent_rate_limited' });
    await expect(second.take(visitor('b'), now + 5)).rejects.toMatchObject({ code: 'agent_rate_limited' });
  });
});
