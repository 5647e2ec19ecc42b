// The memories as they were at a time (GET /memory/{agentId}/memories?asOf=): my personal bucket and the Agent's
// shared one folded from their streams (memory-as-of.ts), with the version each had then. The caller must use the
// Agent now, and sees their own personal bucket and the shared one, as for the live list. A text whose key was
// destroyed since (the memory deleted, the user erased) answers `text: null, erased: true`.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { Inject } from '@nestjs/common';
import { z } from 'zod';
import { Requires, type Principal } from '#access';
import { EVENT_STORE, type EventStore } from '#event-store';
import { ContentCipher } from '#key-store';
import { MemoryResolver, MemoryReads } from '../../memory-resolver.js';
import { memoryBucketAsOf } from '../../memory-as-of.js';
import { bucketKindOf, SHARED_OWNER } from '../../memory.events.js';
import { MemoryDto, type MemoryListQuery } from '../../memory.schemas.js';

export const MemoryAsOfDto = MemoryDto.pick({
  id: true,
  agentId: true,
  bucket: true,
  version: true,
  lastUsedAt: true,
  createdAt: true,
  updatedAt: true,
}).extend({
  text: z.string().nullable().describe('null once erased (its key destroyed since)'),
  erased: z.boolean(),
});

@Requires(MemoryResolver, async (memory, { agentId }: ListMemoriesAsOf) => (await memory.agent(agentId)).asks)
export class ListMemoriesAsOf extends Query<{ data: z.output<typeof MemoryAsOfDto>[]; nextCursor: null }> {
  constructor(
    readonly agentId: string,
    readonly query: z.output<typeof MemoryListQuery>,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(ListMemoriesAsOf)
export class ListMemoriesAsOfHandler implements IQueryHandler<ListMemoriesAsOf> {
  constructor(
    private readonly reads: MemoryReads,
    private readonly cipher: ContentCipher,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
  ) {}

  async execute({ agentId, query, principal }: ListMemoriesAsOf) {
    const agent = await this.reads.agent(agentId);
    const asOf = new Date(query.asOf!);
    const owners = [
      ...(query.bucket !== 'shared' ? [this.reads.user(principal)] : []),
      ...(query.bucket !== 'personal' ? [SHARED_OWNER] : []),
    ];
    const memories = (
      await Promise.all(owners.map((owner) => memoryBucketAsOf(this.eventStore, agent.id, owner, asOf)))
    ).flat();
    const texts = await this.cipher.openMany(memories.map((memory) => memory.text));
    return {
      data: memories.map((memory, i) => ({
        id: memory.memoryId,
        agentId: memory.agentId,
        bucket: bucketKindOf(memory.owner),
        text: texts[i] ?? null,
        erased: texts[i] === null || texts[i] === undefined,
        version: memory.version,
        lastUsedAt: memory.lastUsedAt,
        createdAt: memory.createdAt,
        updatedAt: memory.updatedAt,
      })),
      nextCursor: null,
    };
  }
}
