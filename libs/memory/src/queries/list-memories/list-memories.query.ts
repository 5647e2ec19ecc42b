// My personal memories of an Agent and its shared ones (spec: "Memory" management), opened, oldest first.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { Caller } from '#identity';
import { MemoryAccess } from '../../memory-access.js';
import { toMemoryDto } from '../../memory-dto.js';
import { SHARED_OWNER } from '../../memory.events.js';
import type { MemoryDto, MemoryListQuery } from '../../memory.schemas.js';
import { MemoryStore } from '../../memory-store.js';

export class ListMemories extends Query<{ data: z.output<typeof MemoryDto>[]; nextCursor: null }> {
  constructor(
    readonly agentId: string,
    readonly query: z.output<typeof MemoryListQuery>,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ListMemories)
export class ListMemoriesHandler implements IQueryHandler<ListMemories> {
  constructor(
    private readonly access: MemoryAccess,
    private readonly store: MemoryStore,
  ) {}

  async execute({ agentId, query, caller }: ListMemories) {
    const agent = await this.access.agent(agentId, caller);
    const owners = [
      ...(query.bucket !== 'shared' ? [caller.userId] : []),
      ...(query.bucket !== 'personal' ? [SHARED_OWNER] : []),
    ];
    const memories = await this.store.memories(agent.id, owners);
    return { data: memories.map(toMemoryDto), nextCursor: null };
  }
}
