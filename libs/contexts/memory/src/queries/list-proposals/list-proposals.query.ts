// The shared-memory proposals waiting for the caller (or all of theirs), with their texts opened.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { Requires, type Principal } from '#access';
import { MemoryResolver, MemoryReads } from '../../memory-resolver.js';
import type { MemoryProposalView } from '../../memory.read-model.js';
import type { ProposalDto, ProposalListQuery } from '../../memory.schemas.js';
import { MemoryReader } from '../../memory.reader.js';

export const toProposalDto = (
  view: MemoryProposalView,
  text: string | null,
): z.output<typeof ProposalDto> => ({
  id: view.id,
  agentId: view.agentId,
  text,
  state: view.state,
  memoryId: view.memoryId,
  conversationId: view.conversationId,
  messageId: view.messageId,
  createdAt: view.createdAt,
  answeredAt: view.answeredAt,
});

@Requires(MemoryResolver, async (memory, { agentId }: ListProposals) => (await memory.agent(agentId)).asks)
export class ListProposals extends Query<{ data: z.output<typeof ProposalDto>[]; nextCursor: null }> {
  constructor(
    readonly agentId: string,
    readonly query: z.output<typeof ProposalListQuery>,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(ListProposals)
export class ListProposalsHandler implements IQueryHandler<ListProposals> {
  constructor(
    private readonly reads: MemoryReads,
    private readonly reader: MemoryReader,
  ) {}

  async execute({ agentId, query, principal }: ListProposals) {
    const agent = await this.reads.agent(agentId);
    const views = await this.reader.proposals(
      agent.id,
      this.reads.user(principal),
      query.state === 'pending',
    );
    const texts = await this.reader.texts(views.map((view) => view.text));
    return { data: views.map((view, i) => toProposalDto(view, texts[i] ?? null)), nextCursor: null };
  }
}
