// An API key's usage limit, what its current window has used and when the window resets. Admins see any key; other
// keys their own.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { NotFoundError } from '#kernel';
import { API_KEYS, type ApiKeyView } from '#identity';
import { ask, Requires, type CallerKey, type Caller } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { UsageLimiter } from '../../usage-limiter.js';
import { windowResetsAt } from '../../usage-window.js';
import type { CostControlDto } from './get-cost-control.schema.js';

// Another key's limits: admins only (`usage.read.all`).
@Requires(({ apiKeyId, caller }: GetCostControl) =>
  apiKeyId === caller.apiKey.id
    ? []
    : ask('usage.read.all', null, "only admins see another key's limits", { code: 'admin_required' }),
)
export class GetCostControl extends Query<z.output<typeof CostControlDto>> {
  constructor(
    readonly apiKeyId: string,
    readonly caller: Caller,
    /** Read the key as stored even when it is the caller's own (after a write; the caller's copy is older). */
    readonly stored = false,
  ) {
    super();
  }
}

@QueryHandler(GetCostControl)
export class GetCostControlHandler implements IQueryHandler<GetCostControl> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly limiter: UsageLimiter,
  ) {}

  async execute({ apiKeyId, caller, stored }: GetCostControl) {
    return this.status(apiKeyId === caller.apiKey.id && !stored ? caller.apiKey : await this.key(apiKeyId));
  }

  private async key(apiKeyId: string): Promise<ApiKeyView> {
    const key = await this.readStore.reader<ApiKeyView>(API_KEYS).get(apiKeyId);
    if (!key || key.revoked) throw new NotFoundError('API key', apiKeyId);
    return key;
  }

  private async status(key: CallerKey) {
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
