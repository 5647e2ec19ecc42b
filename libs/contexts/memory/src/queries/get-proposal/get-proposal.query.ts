// One shared-memory proposal of the principal's, as the answering route returns it after its command (no route of
// its own: the list is the read route). Answered, its text is gone (its key destroyed): `text` is null.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { permits, type Principal } from '#access';
import { MemoryAccess } from '../../memory-access.js';
import { ProposalNotFoundError } from '../../memory-proposal.decider.js';
import { MemoryReader } from '../../memory.reader.js';
import type { ProposalDto } from '../../memory.schemas.js';
import { toProposalDto } from '../list-proposals/list-proposals.query.js';

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
    private readonly access: MemoryAccess,
    private readonly reader: MemoryReader,
  ) {}

  async execute({ agentId, proposalId, principal }: GetProposal) {
    const agent = await this.access.agent(agentId, principal);
    const proposal = await this.reader.proposal(proposalId);
    if (
      !proposal ||
      proposal.agentId !== agent.id ||
      !permits(principal, 'user.own', { ownerUserId: proposal.userId })
    )
      throw new ProposalNotFoundError(proposalId);
    return toProposalDto(proposal, await this.reader.text(proposal.text));
  }
}
