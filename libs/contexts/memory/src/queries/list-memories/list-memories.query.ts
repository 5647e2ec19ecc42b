// My personal memories of an Agent and its shared ones (spec: "Memory" management), opened, oldest first.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { Requires, type Principal } from '#access';
import { MemoryResolver, MemoryReads } from '../../memory-resolver.js';
import { toMemoryDto } from '../../memory-dto.js';
import { SHARED_OWNER } from '../../memory.events.js';
import { MemoryReader } from '../../memory.reader.js';
import type { MemoryDto, MemoryListQuery } from '../../memory.schemas.js';

@Requires(MemoryResolver, async (memory, { agentId }: ListMemories) => (await memory.agent(agentId)).asks)
export class ListMemories extends Query<{ data: z.output<typeof MemoryDto>[]; nextCursor: null }> {
  constructor(
    readonly agentId: string,
    readonly query: z.output<typeof MemoryListQuery>,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(ListMemories)
export class ListMemoriesHandler implements IQueryHandler<ListMemories> {
  constructor(
    private readonly reads: MemoryReads,
    private readonly reader: MemoryReader,
  ) {}

  async execute({ agentId, query, principal }: ListMemories) {
    const agent = await this.reads.agent(agentId);
    const owners = [
      ...(query.bucket !== 'shared' ? [this.reads.user(principal)] : []),
      ...(query.bucket !== 'personal' ? [SHARED_OWNER] : []),
    ];
    const memories = await this.reader.memories(agent.id, owners);
    // The Agent's manager and admins govern the shared bucket: each shared memory comes with its contributor and
    // the answers that used it, so a poisoned one can be found, its reach seen, and removed.
    const governs = owners.includes(SHARED_OWNER) && (await this.reads.managesShared(agent, principal));
    const data: z.output<typeof MemoryDto>[] = [];
    const caller = this.reads.user(principal);
    for (const memory of memories) {
      // Where a memory was saved is told to the person whose conversation it was (the chat shows it at that answer).
      const dto = {
        ...toMemoryDto(memory),
        ...(memory.origin && memory.contributor.userId === caller ? { savedFrom: memory.origin } : {}),
      };
      if (!governs || memory.bucket !== 'shared') {
        data.push(dto);
        continue;
      }
      const answers = await this.reader.answersUsing(memory.id);
      data.push({
        ...dto,
        contributor: memory.contributor,
        answers: answers.map(({ conversationId, messageId, at }) => ({ conversationId, messageId, at })),
      });
    }
    return { data, nextCursor: null };
  }
}
