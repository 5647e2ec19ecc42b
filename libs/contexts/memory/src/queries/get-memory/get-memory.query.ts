// One memory, opened, as a write route answers it after its command (no route of its own: the list is the read
// route). The principal must see it, as for every memory read.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { Requires, type Principal } from '#access';
import { MemoryResolver, MemoryReads } from '../../memory-resolver.js';
import { toMemoryDto } from '../../memory-dto.js';
import { MemoryNotFoundError } from '../../memory.decider.js';
import { MemoryReader } from '../../memory.reader.js';
import type { MemoryDto } from '../../memory.schemas.js';

@Requires(MemoryResolver, (memory, { agentId, memoryId }: GetMemory) =>
  memory.memory(agentId, memoryId, 'memory.read'),
)
export class GetMemory extends Query<z.output<typeof MemoryDto>> {
  constructor(
    readonly agentId: string,
    readonly memoryId: string,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(GetMemory)
export class GetMemoryHandler implements IQueryHandler<GetMemory> {
  constructor(
    private readonly reads: MemoryReads,
    private readonly reader: MemoryReader,
  ) {}

  async execute({ agentId, memoryId }: GetMemory) {
    const agent = await this.reads.agent(agentId);
    const [memory] = await this.reader.open([await this.reads.memory(agent, memoryId)]);
    if (!memory) throw new MemoryNotFoundError(memoryId);
    return toMemoryDto(memory);
  }
}
