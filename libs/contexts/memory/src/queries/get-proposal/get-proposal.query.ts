// One shared-memory proposal of the principal's, as the answering route returns it after its command (no route of
// its own: the list is the read route). Answered, its text is gone (its key destroyed): `text` is null.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { Requires, type Principal } from '#access';
import { MemoryResolver, MemoryReads } from '../../memory-resolver.js';
import { MemoryReader } from '../../memory.reader.js';
import type { ProposalDto } from '../../memory.schemas.js';
import { toProposalDto } from '../list-proposals/list-proposals.query.js';

@Requires(MemoryResolver, (memory, { agentId, proposalId }: GetProposal) =>
  memory.proposal(agentId, proposalId, 'memory.read'),
)
export class GetProposal extends Query<z.output<typeof ProposalDto>> {
  constructor(
    readonly agentId: string,
    readonly proposalId: string,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(GetProposal)
export class GetProposalHandler implements IQueryHandler<GetProposal> {
  constructor(
    private readonly reads: MemoryReads,
    private readonly reader: MemoryReader,
  ) {}

  async execute({ agentId, proposalId }: GetProposal) {
    const agent = await this.reads.agent(agentId);
    const proposal = await this.reads.proposal(agent, proposalId);
    return toProposalDto(proposal, await this.reader.text(proposal.text));
  }
}
