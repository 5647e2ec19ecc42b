// Usage and spend limits on the core API. GET /usage reports one subject's daily usage (an API key, Agent, model or
// user); GET /cost-control shows an API key's limit, what its current window has used and when the window resets.
// Admins see any subject; other keys their own key and user. Admins set limits with POST/PUT/DELETE
// /cost-control/{apiKeyId} (the same ApiKeyUsageLimitChanged event as PATCH /api-keys/{id} with `usageLimit`).
import { Body, Controller, Delete, Get, Inject, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ConflictError, ForbiddenError, NotFoundError } from '#kernel';
import {
  commandContext,
  CurrentCaller,
  type Caller,
  assertAdmin,
  ChangeApiKey,
  UsageLimitBody,
  toLimit,
  API_KEYS,
  type ApiKeyView,
} from '#identity';
import { ZodBody, ZodQuery, ApiRoute } from '#http';
import { ReadYourWrites } from '#platform';
import type { UsageLimit } from '#identity';
import { READ_STORE, type ReadStore } from '#read-store';
import { USAGE_DIMENSIONS } from '../usage.read-model.js';
import { UsageLimiter } from '../usage-limiter.js';
import { usageRange, usageReport, UsageRangeQuery } from '../usage-report.js';
import { windowResetsAt } from '../usage-window.js';

export const UsageQuery = UsageRangeQuery.extend({
  dimension: z.enum(USAGE_DIMENSIONS).default('apiKey').describe('What the subject is'),
  subject: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe("The key, Agent, model or user id (default: the caller's own key or user)"),
});

export const CostControlQuery = z.object({
  apiKeyId: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe("Another key's id (admins only; default: the caller's key)"),
});

const Figures = z.object({
  calls: z.number(),
  failedCalls: z.number(),
  inputTokens: z.number().describe('All input tokens, cached reads included'),
  cachedInputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
  billableCostUsd: z.number().describe('Cost of the calls not covered by the subscription'),
});

export const UsageReportDto = z.object({
  dimension: z.enum(USAGE_DIMENSIONS),
  subject: z.string(),
  from: z.string(),
  to: z.string(),
  totals: Figures,
  days: z.array(Figures.extend({ day: z.string() })),
});

export const CostControlDto = z.object({
  apiKeyId: z.string(),
  usageLimit: z
    .object({
      tokens: z.number().nullable(),
      costUsd: z.number().nullable(),
      window: z.enum(['day', 'week', 'month']),
    })
    .nullable(),
  used: z.object({ tokens: z.number(), costUsd: z.number() }).nullable().describe('In the current window'),
  remaining: z.object({ tokens: z.number().nullable(), costUsd: z.number().nullable() }).nullable(),
  exceeded: z.boolean(),
  resetsAt: z.string().nullable().describe('When the current window ends'),
});

@Controller('api/v1/core')
export class UsageController {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly limiter: UsageLimiter,
    private readonly commandBus: CommandBus,
    private readonly consistency: ReadYourWrites,
  ) {}

  @ApiRoute({
    tag: 'Usage',
    summary: 'Daily usage of an API key, Agent, model or user',
    description:
      'Built from the ModelCallRecorded events of both surfaces. Non-admin keys see their own key and user only.',
    query: UsageQuery,
    response: { status: 200, schema: UsageReportDto, description: 'Totals and the days with calls' },
    errors: [400, 401, 403],
  })
  @Get('usage')
  async usage(
    @Query(new ZodQuery(UsageQuery)) query: z.output<typeof UsageQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    const own =
      query.dimension === 'apiKey' ? caller.apiKey.id : query.dimension === 'user' ? caller.userId : null;
    const subject = query.subject ?? own;
    if (!caller.isAdmin && (subject === null || subject !== own))
      throw new ForbiddenError(
        'usage_access_denied',
        query.dimension === 'agent'
          ? 'use GET /llm/{agentId}/usage for an Agent this key is granted'
          : "only admins see usage other than their own key's and user's",
      );
    if (subject === null)
      throw new ForbiddenError('usage_access_denied', `name the ${query.dimension} in \`subject\``);
    return usageReport(this.readStore, query.dimension, subject, usageRange(query));
  }

  @ApiRoute({
    tag: 'Usage',
    summary: "An API key's usage limit, what its window has used, and when it resets",
    description:
      'Admins set limits with POST/PUT/DELETE /cost-control/{apiKeyId}. Chat completions, rerank and the generate ' +
      'endpoints answer 429 `usage_limit_exceeded` once the window is used up.',
    query: CostControlQuery,
    response: { status: 200, schema: CostControlDto, description: 'The limit and the current window' },
    errors: [401, 403, 404],
  })
  @Get('cost-control')
  async costControl(
    @Query(new ZodQuery(CostControlQuery)) query: z.output<typeof CostControlQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    const apiKeyId = query.apiKeyId ?? caller.apiKey.id;
    if (apiKeyId !== caller.apiKey.id && !caller.isAdmin)
      throw new ForbiddenError('admin_required', "only admins see another key's limits");
    return this.status(apiKeyId === caller.apiKey.id ? caller.apiKey : await this.key(apiKeyId));
  }

  /** Sets a limit on a key that has none (409 when it has one: PUT replaces). */
  @ApiRoute({
    tag: 'Usage',
    summary: 'Set a usage limit on an API key that has none (admin)',
    body: UsageLimitBody,
    response: { status: 201, schema: CostControlDto, description: 'The key with its new limit' },
    errors: [
      400,
      403,
      404,
      { status: 409, description: '`usage_limit_exists`: the key has a limit (PUT replaces it)' },
    ],
  })
  @Post('cost-control/:apiKeyId')
  async createLimit(
    @Param('apiKeyId') apiKeyId: string,
    @Body(new ZodBody(UsageLimitBody)) body: z.output<typeof UsageLimitBody>,
    @CurrentCaller() caller: Caller,
  ) {
    assertAdmin(caller);
    if ((await this.key(apiKeyId)).usageLimit)
      throw new ConflictError(
        'usage_limit_exists',
        `API key '${apiKeyId}' already has a usage limit; PUT replaces it`,
      );
    return this.setLimit(apiKeyId, toLimit(body), caller);
  }

  @ApiRoute({
    tag: 'Usage',
    summary: "Set or replace an API key's usage limit (admin)",
    description: 'Takes effect at once, for calls already counted in the current window too.',
    body: UsageLimitBody,
    response: { status: 200, schema: CostControlDto, description: 'The key with its limit' },
    errors: [400, 403, 404],
  })
  @Put('cost-control/:apiKeyId')
  async replaceLimit(
    @Param('apiKeyId') apiKeyId: string,
    @Body(new ZodBody(UsageLimitBody)) body: z.output<typeof UsageLimitBody>,
    @CurrentCaller() caller: Caller,
  ) {
    assertAdmin(caller);
    return this.setLimit(apiKeyId, toLimit(body), caller);
  }

  @ApiRoute({
    tag: 'Usage',
    summary: "Remove an API key's usage limit (admin)",
    response: { status: 200, schema: CostControlDto, description: 'The key, now unlimited' },
    errors: [403, 404],
  })
  @Delete('cost-control/:apiKeyId')
  async removeLimit(@Param('apiKeyId') apiKeyId: string, @CurrentCaller() caller: Caller) {
    assertAdmin(caller);
    return this.setLimit(apiKeyId, null, caller);
  }

  private async setLimit(apiKeyId: string, usageLimit: UsageLimit | null, caller: Caller) {
    const result = await this.commandBus.execute<ChangeApiKey, { position: number }>(
      new ChangeApiKey({ apiKeyId, usageLimit }, commandContext(caller)),
    );
    await this.consistency.settle(result.position, ['api-keys']);
    return this.status(await this.key(apiKeyId));
  }

  private async key(apiKeyId: string): Promise<ApiKeyView> {
    const key = await this.readStore.reader<ApiKeyView>(API_KEYS).get(apiKeyId);
    if (!key || key.revoked) throw new NotFoundError('API key', apiKeyId);
    return key;
  }

  private async status(key: ApiKeyView) {
    const limit = key.usageLimit;
    const used = await this.limiter.used(key);
    const round = (usd: number) => Math.round(usd * 1e9) / 1e9;
    const remaining =
      limit && used
        ? {
            tokens: limit.tokens === null ? null : Math.max(0, limit.tokens - used.tokens),
            costUsd: limit.costUsd === null ? null : Math.max(0, round(limit.costUsd - used.costUsd)),
          }
        : null;
    return {
      apiKeyId: key.id,
      usageLimit: limit,
      used: used ? { tokens: used.tokens, costUsd: round(used.costUsd) } : null,
      remaining,
      exceeded: remaining !== null && (remaining.tokens === 0 || remaining.costUsd === 0),
      resetsAt: limit ? windowResetsAt(limit.window, new Date()) : null,
    };
  }
}
