// The bridge's `conversation.findMany(filter?)`: the caller's conversations with an Agent, never incognito or private
// ones, archived ones only when asked, without message bodies; filtered, ordered and paged as the filter says
// (`where`, `select`, `orderBy`, `skip`, `take`, `cursor`: the id of the conversation a page starts at). An App token
// without a person has no conversations of its own: its list is empty. At most SCAN_BOUND conversations of one
// person with one Agent are considered.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { z } from 'zod';
import { Requires, type Caller } from '#access';
import { ValidationError } from '#kernel';
import { ConversationResolver } from '../../conversation-resolver.js';
import { ConversationDirectory } from '../../conversation-directory.js';
import { ConversationReader } from '../../conversation.reader.js';
import type { ConversationRecord } from '../../conversation-records.js';

export const SCAN_BOUND = 5_000;

const FIELDS = ['id', 'agentId', 'title', 'archived', 'messageCount', 'lastMessageAt', 'createdAt'] as const;
type Field = (typeof FIELDS)[number];

export const FindConversationsFilter = z
  .object({
    where: z
      .object({
        archived: z.boolean().optional().describe('Absent: active ones only'),
        title: z
          .object({ contains: z.string().min(1).max(200) })
          .strict()
          .optional(),
        createdAt: z
          .object({ gte: z.iso.datetime().optional(), lte: z.iso.datetime().optional() })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    select: z
      .partialRecord(z.enum(FIELDS), z.boolean())
      .optional()
      .describe('The fields to answer (true); all of them when absent'),
    orderBy: z
      .partialRecord(z.enum(['createdAt', 'lastMessageAt', 'messageCount', 'title']), z.enum(['asc', 'desc']))
      .optional(),
    skip: z.number().int().min(0).max(SCAN_BOUND).optional(),
    take: z.number().int().min(1).max(200).optional(),
    cursor: z
      .object({ id: z.string().min(1).max(200) })
      .strict()
      .optional(),
  })
  .strict();

export type FindConversationsFilter = z.output<typeof FindConversationsFilter>;

export type FoundConversation = Partial<Pick<ConversationRecord, Field>>;

@Requires(ConversationResolver, (conversations, { agentId }: FindConversations) =>
  conversations.agent(agentId),
)
export class FindConversations extends Query<{ data: FoundConversation[] }> {
  constructor(
    readonly agentId: string,
    readonly filter: FindConversationsFilter,
    readonly caller: Caller,
  ) {
    super();
  }
}

const compare = (a: unknown, b: unknown): number =>
  a === b ? 0 : a === null || a === undefined ? -1 : b === null || b === undefined ? 1 : a < b ? -1 : 1;

@QueryHandler(FindConversations)
export class FindConversationsHandler implements IQueryHandler<FindConversations> {
  constructor(
    private readonly directory: ConversationDirectory,
    private readonly reader: ConversationReader,
  ) {}

  async execute({ agentId, filter, caller }: FindConversations) {
    const agent = await this.directory.agent(agentId);
    // An App token alone stands for no person: it has no conversations.
    if (caller.app && !caller.app.user) return { data: [] };
    const where = filter.where ?? {};
    const { data } = await this.reader.listShareable(
      agent.id,
      caller.userId,
      where.archived ?? false,
      SCAN_BOUND,
    );
    let found = data.filter(
      (record) =>
        (!where.title || (record.title ?? '').toLowerCase().includes(where.title.contains.toLowerCase())) &&
        (!where.createdAt?.gte || record.createdAt >= where.createdAt.gte) &&
        (!where.createdAt?.lte || record.createdAt <= where.createdAt.lte),
    );
    const [field, direction] = (Object.entries(filter.orderBy ?? {})[0] ?? ['createdAt', 'asc']) as [
      keyof ConversationRecord,
      'asc' | 'desc',
    ];
    found = found.toSorted(
      (a, b) => (direction === 'desc' ? -1 : 1) * (compare(a[field], b[field]) || compare(a.id, b.id)),
    );
    if (filter.cursor) {
      const at = found.findIndex((record) => record.id === filter.cursor!.id);
      if (at < 0)
        throw new ValidationError('invalid_cursor', 'the cursor names no listed conversation', 'cursor');
      found = found.slice(at);
    }
    const page = found.slice(filter.skip ?? 0, (filter.skip ?? 0) + (filter.take ?? 50));
    const selected = FIELDS.filter((name) => (filter.select ? filter.select[name] === true : true));
    return {
      data: page.map(
        (record) => Object.fromEntries(selected.map((name) => [name, record[name]])) as FoundConversation,
      ),
    };
  }
}
