// A memory's governance views: its versions (text, who or what wrote it, which conversation message caused it) and
// the answers that used it (from the provenance read model every recorded answer feeds), so a poisoned memory can be found, its reach seen,
// and it can be rolled back or removed.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { permits, Requires, type Principal } from '#access';
import { MemoryResolver, MemoryReads } from '../../memory-resolver.js';
import { SHARED_OWNER } from '../../memory.events.js';
import { MemoryReader } from '../../memory.reader.js';
import type { MemoryAnswersDto, MemoryVersionDto } from '../../memory.schemas.js';

@Requires(MemoryResolver, (memory, { agentId, memoryId }: GetMemoryHistory) =>
  memory.memory(agentId, memoryId, 'memory.read'),
)
export class GetMemoryHistory extends Query<
  { data: z.output<typeof MemoryVersionDto>[] } | z.output<typeof MemoryAnswersDto>
> {
  constructor(
    readonly agentId: string,
    readonly memoryId: string,
    readonly what: 'versions' | 'answers',
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(GetMemoryHistory)
export class GetMemoryHistoryHandler implements IQueryHandler<GetMemoryHistory> {
  constructor(
    private readonly reads: MemoryReads,
    private readonly reader: MemoryReader,
  ) {}

  async execute({ agentId, memoryId, what, principal }: GetMemoryHistory) {
    const agent = await this.reads.agent(agentId);
    const view = await this.reads.memory(agent, memoryId);
    if (what === 'answers') {
      // A shared memory is recalled into every user's turns: its manager (and admins) see every answer that used
      // it; any other user sees their own answers only.
      const everyone = view.owner !== SHARED_OWNER || (await this.reads.managesShared(agent, principal));
      const answers = (await this.reader.answersUsing(view.id)).filter(
        (answer) => everyone || permits(principal, 'user.own', { ownerUserId: answer.userId }),
      );
      return {
        data: answers.map(({ conversationId, messageId, at }) => ({ conversationId, messageId, at })),
      };
    }
    const texts = await this.reader.texts(view.versions.map((version) => version.text));
    return {
      data: view.versions.map((version, i) => ({
        version: version.version,
        text: texts[i] ?? null,
        reason: version.reason,
        rolledBackTo: version.rolledBackTo,
        by: version.by,
        source: { ...version.source },
        at: version.at,
      })),
    };
  }
}
