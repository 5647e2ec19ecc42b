// Embedded chats of public Agents: a visitor needs no account. Each visit gets a short-lived visitor session signed by
// the instance (HMAC-SHA256) and bound to one Agent; it travels in the `x-embed-session` header, never in the page or
// a snippet, so it is worth nothing on another Agent and expires on its own. The guard turns a valid one into an
// embed visitor's caller on the visitor's routes only (EMBED_VISITOR_ROUTES), and takes the abuse limits: messages
// per visitor and per Agent per minute (counted in the rate limit store, which the api processes share when scaled
// out). The per-Agent daily cost cap is the usage limit of
// the Agent's embed key (`embed_<agentId>`), which every visitor of the Agent spends.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { PLATFORM_CONFIG, PlatformError, type PlatformConfig } from '#kernel';
import { RATE_LIMIT_STORE, type RateLimitStore } from '#rate-limit-store';

export const EMBED_SESSION_HEADER = 'x-embed-session';

/** The abuse limits a session carries (the Agent's settings, or the instance defaults, when it was issued). */
export interface VisitorLimits {
  readonly visitorMessagesPerMinute: number;
  readonly agentMessagesPerMinute: number;
  readonly dailyCostUsd: number;
}

export interface VisitorSession {
  readonly agentId: string;
  readonly visitorId: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
  readonly limits: VisitorLimits;
}

type LimitSettings = { readonly [K in keyof VisitorLimits]?: number | null };

/** The key every visitor of one Agent spends (usage, cost cap): the Agent is who pays. */
export const embedKeyId = (agentId: string): string => `embed_${agentId}`;

const b64 = (value: Buffer | string) => Buffer.from(value).toString('base64url');

@Injectable()
export class EmbedVisitorSessions {
  private readonly secret: Buffer;

  constructor(@Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig) {
    this.secret = config.embed.sessionSecret
      ? Buffer.from(config.embed.sessionSecret, 'utf8')
      : randomBytes(32);
  }

  /**
   * A new visitor session of this Agent, living `lifetimeMs` (at least EMBED_SESSION_MINUTES), carrying the Agent's
   * abuse limits (each unset one: the instance default); a change of them applies to the sessions issued after it.
   */
  issue(
    agentId: string,
    lifetimeMs: number,
    limits: LimitSettings = {},
    now = Date.now(),
  ): { token: string; session: VisitorSession } {
    const session: VisitorSession = {
      agentId,
      visitorId: `vis_${randomBytes(12).toString('base64url')}`,
      expiresAt: now + Math.max(lifetimeMs, this.config.embed.sessionMs),
      limits: this.resolve(limits),
    };
    const { visitorMessagesPerMinute, agentMessagesPerMinute, dailyCostUsd } = session.limits;
    const payload = b64(
      JSON.stringify({
        a: session.agentId,
        v: session.visitorId,
        e: session.expiresAt,
        l: [visitorMessagesPerMinute, agentMessagesPerMinute, dailyCostUsd],
      }),
    );
    return { token: `${payload}.${this.sign(payload)}`, session };
  }

  /** The session of a token this instance signed and that has not expired, else null. */
  verify(token: string, now = Date.now()): VisitorSession | null {
    if (token.length > 512) return null;
    const [payload, signature, extra] = token.split('.');
    if (!payload || !signature || extra !== undefined) return null;
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    try {
      const { a, v, e, l } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<
        string,
        unknown
      >;
      if (typeof a !== 'string' || typeof v !== 'string' || typeof e !== 'number' || e <= now) return null;
      const [visitor, agent, cost] = Array.isArray(l) ? (l as unknown[]) : [];
      const number = (value: unknown) => (typeof value === 'number' && value > 0 ? value : null);
      return {
        agentId: a,
        visitorId: v,
        expiresAt: e,
        limits: this.resolve({
          visitorMessagesPerMinute: number(visitor),
          agentMessagesPerMinute: number(agent),
          dailyCostUsd: number(cost),
        }),
      };
    } catch {
      return null;
    }
  }

  private resolve(limits: LimitSettings): VisitorLimits {
    const defaults = this.config.embed;
    return {
      visitorMessagesPerMinute: limits.visitorMessagesPerMinute ?? defaults.visitorMessagesPerMinute,
      agentMessagesPerMinute: limits.agentMessagesPerMinute ?? defaults.agentMessagesPerMinute,
      dailyCostUsd: limits.dailyCostUsd ?? defaults.dailyCostUsd,
    };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(`embed-visitor.v1.${payload}`).digest('base64url');
  }
}

/** 429 of an embed abuse limit, with Retry-After. */
export class EmbedRateLimitedError extends PlatformError {
  constructor(
    code: 'visitor_rate_limited' | 'agent_rate_limited',
    message: string,
    retryAfterSeconds: number,
  ) {
    super('rate_limited', code, message);
    this.headers = { 'retry-after': String(retryAfterSeconds) };
  }
}

const MINUTE = 60_000;

/**
 * Messages per visitor and per Agent in the last minute (a sliding window in the rate limit store: shared by the api
 * processes with the production engines), as the session says. A message is counted first and taken back when it is
 * over a limit, so two processes counting at once can refuse one too many, never let one too many through.
 */
@Injectable()
export class EmbedRateLimits {
  constructor(@Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore) {}

  /** Counts one message of this visitor, or throws 429 when the visitor's or the Agent's minute is full. */
  async take(session: VisitorSession, now = Date.now()): Promise<void> {
    const message = randomUUID();
    const visitorKey = `embed:visitor:${session.visitorId}`;
    const agentKey = `embed:agent:${session.agentId}`;
    const { visitorMessagesPerMinute, agentMessagesPerMinute } = session.limits;
    const wait = (times: number[]) => Math.max(1, Math.ceil((times[0]! + MINUTE - now) / 1000));
    const visitor = await this.store.hit(visitorKey, message, now, MINUTE);
    if (visitor.length > visitorMessagesPerMinute) {
      await this.store.forget(visitorKey, message);
      throw new EmbedRateLimitedError(
        'visitor_rate_limited',
        `too many messages: at most ${visitorMessagesPerMinute} a minute per visitor`,
        wait(visitor),
      );
    }
    const agent = await this.store.hit(agentKey, message, now, MINUTE);
    if (agent.length > agentMessagesPerMinute) {
      await Promise.all([this.store.forget(visitorKey, message), this.store.forget(agentKey, message)]);
      throw new EmbedRateLimitedError(
        'agent_rate_limited',
        `this chat is busy: at most ${agentMessagesPerMinute} messages a minute`,
        wait(agent),
      );
    }
  }
}
