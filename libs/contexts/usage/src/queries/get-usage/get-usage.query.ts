// One subject's daily usage, and a user's split by model or Agent. Admins see any subject; other keys their own key and
// user (an Agent's usage is GET /llm/{agentId}/usage, for an Agent the key is granted).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ValidationError } from '#kernel';
import { ask, Requires, type Caller } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import {
  usageBreakdown,
  usageRange,
  usageReport,
  type UsagePart,
  type UsageReport,
} from '../../usage-report.js';
import type { UsageBreakdown } from '../../usage.read-model.js';
import type { UsageQuery } from './get-usage.schema.js';

/** The report, with the parts when the query asks for a split (`by`). */
type UsageAnswer = UsageReport & { readonly by?: UsageBreakdown; readonly parts?: readonly UsagePart[] };

/** The subject a query reads: the one it names, else the caller's own key or user (none of an Agent or a model). */
function subjectsOf({ query, caller }: GetUsage): {
  readonly own: string | null;
  readonly subject: string | null;
} {
  const own =
    query.dimension === 'apiKey' ? caller.apiKey.id : query.dimension === 'user' ? caller.userId : null;
  return { own, subject: query.subject ?? own };
}

// Another subject than one's own key and user: admins only (`usage.read.all`).
@Requires((message: GetUsage) => {
  const { own, subject } = subjectsOf(message);
  return subject === own
    ? []
    : ask(
        'usage.read.all',
        null,
        message.query.dimension === 'agent'
          ? 'use GET /llm/{agentId}/usage for an Agent this key is granted'
          : "only admins see usage other than their own key's and user's",
        { code: 'usage_access_denied' },
      );
})
export class GetUsage extends Query<UsageAnswer> {
  constructor(
    readonly query: z.output<typeof UsageQuery>,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetUsage)
export class GetUsageHandler implements IQueryHandler<GetUsage> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute(message: GetUsage): Promise<UsageAnswer> {
    const { query } = message;
    const { subject } = subjectsOf(message);
    // A missing subject (agent, model: there is no own one) is a malformed request, whoever asks; the schema refuses
    // it first, this keeps the handler right on its own.
    if (subject === null) throw new ValidationError('missing_field', 'subject is required', 'subject');
    const range = usageRange(query);
    const report = await usageReport(this.readStore, query.dimension, subject, range);
    if (query.by === undefined) return report;
    const parts = await usageBreakdown(this.readStore, query.by, subject, range);
    return { ...report, by: query.by, parts };
  }
}
