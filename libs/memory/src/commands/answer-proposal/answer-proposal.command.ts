// Answering a shared-memory proposal (spec: "Proposed shared memory"): confirm → saved as shared (every user of the
// Agent sees it); personal → saved for the user only; discard → not saved. The text is screened again before it is
// saved (flagged → not saved, with the exact message). A proposal is answered once (409 after). The proposal's own
// key is destroyed once answered: the memory, if any, has its own.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { callerScope } from '#model-gateway';
import { commandContext, type Caller } from '#identity';
import { KEY_STORE, type KeyStore } from '#key-store';
import { newId, ValidationError } from '#kernel';
import { MemoryAccess } from '../../memory-access.js';
import { ProposalNotFoundError, ProposalRateLimitedError } from '../../memory-proposal.decider.js';
import { sharedMemoryApplies } from '../../memory-rules.js';
import { SHARED_OWNER } from '../../memory.events.js';
import type { AnswerProposalBody } from '../../memory.schemas.js';
import { MemoryScreening } from '../../memory-screening.js';
import { MemoryStore } from '../../memory-store.js';
import { FLAGGED_MESSAGE } from '../../screening/memory-screen.js';
import { toProposalDto } from '../../queries/list-proposals/list-proposals.query.js';

export class AnswerProposal extends Command<
  ReturnType<typeof toProposalDto> & { readonly message: string | null }
> {
  constructor(
    readonly agentId: string,
    readonly proposalId: string,
    readonly body: z.output<typeof AnswerProposalBody>,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(AnswerProposal)
export class AnswerProposalHandler implements ICommandHandler<AnswerProposal> {
  constructor(
    private readonly access: MemoryAccess,
    private readonly store: MemoryStore,
    private readonly screening: MemoryScreening,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ agentId, proposalId, body, caller }: AnswerProposal) {
    const agent = await this.access.agent(agentId, caller);
    const proposal = await this.store.proposal(proposalId);
    if (!proposal || proposal.agentId !== agent.id || proposal.userId !== caller.userId)
      throw new ProposalNotFoundError(proposalId);
    const context = commandContext(caller);
    const text = await this.store.cipher.open(proposal.text);
    const source = {
      kind: 'proposal' as const,
      conversationId: proposal.conversationId,
      messageId: proposal.messageId,
    };
    const memoryId = newId('mem');
    let message: string | null = null;
    let position: number;
    // Memory off (always so for a public Agent) stops new memories on every path: only discarding is left.
    if (body.answer !== 'discard' && (!agent.memoryEnabled || agent.isPublic))
      throw new ValidationError(
        'memory_disabled',
        'this Agent keeps no new memories (memoryEnabled is off, or it is public): the proposal can only be discarded',
        'answer',
      );
    // (An answered proposal goes on to the decider's 409 proposal_already_answered, not to these limits.)
    const sharing =
      body.answer === 'confirm' &&
      proposal.state === 'pending' &&
      text !== null &&
      sharedMemoryApplies(agent);
    // The user's confirmations per hour on this Agent are limited (a flood of proposals is a flood of shared
    // memories): beyond it nothing changes and the proposal stays pending (429).
    if (sharing) {
      const rate = await this.store.proposalRate(agent.id, caller.userId, 'confirmed');
      if (rate.count >= rate.limit) throw new ProposalRateLimitedError(rate.limit, rate.retryAfterSeconds);
    }
    if (body.answer !== 'discard' && text !== null) {
      const verdict = await this.screening.screen(
        text,
        callerScope(caller, 'core', agent.id),
        AbortSignal.timeout(60_000),
      );
      if (verdict.flagged) {
        position = await this.store.flagProposal(proposalId, verdict.reasons, context);
        await this.keys.destroy(proposalId);
        await this.store.settle(position);
        message = FLAGGED_MESSAGE;
        return { ...toProposalDto((await this.store.proposal(proposalId))!, null), message };
      }
    }
    // A full shared bucket holding nothing of this user's to retire refuses the confirmation (409
    // shared_memory_full) before anything is answered: the proposal stays pending and can still be kept personal.
    if (sharing) await this.store.checkRoom(agent.id, SHARED_OWNER, caller.userId, source);
    // Shared only while the Agent shares memories; otherwise a confirmation keeps it for the user. A text erased
    // meanwhile (the user cleared their memories, destroying its key) can only be discarded: there is nothing to save.
    const answer =
      text === null
        ? 'discard'
        : body.answer === 'confirm' && !sharedMemoryApplies(agent)
          ? 'personal'
          : body.answer;
    position = await this.store.answer(
      { type: 'AnswerProposal', proposalId, agentId: agent.id, userId: caller.userId, answer, memoryId },
      context,
    );
    if (answer !== 'discard' && text !== null)
      position = (
        await this.store.add(
          {
            agentId: agent.id,
            owner: answer === 'confirm' ? SHARED_OWNER : caller.userId,
            text,
            source,
            addedBy: caller.userId,
            memoryId,
          },
          context,
        )
      ).position;
    await this.keys.destroy(proposalId);
    await this.store.settle(position);
    return { ...toProposalDto((await this.store.proposal(proposalId))!, null), message };
  }
}
