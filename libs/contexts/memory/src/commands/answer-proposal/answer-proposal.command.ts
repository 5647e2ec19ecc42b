// Answering a shared-memory proposal (spec: "Proposed shared memory"): confirm → saved as shared (every user of the
// Agent sees it); personal → saved for the user only; discard → not saved. The text is screened again before it is
// saved (flagged → not saved, with the exact message). A proposal is answered once (409 after). The proposal's own
// key is destroyed once answered: the memory, if any, has its own.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { KEY_STORE, type KeyStore } from '#key-store';
import { newId, ValidationError } from '#kernel';
import type { CallScope } from '#model-gateway';
import { MemoryResolver, MemoryReads } from '../../memory-resolver.js';
import { ProposalRateLimitedError } from '../../memory-proposal.decider.js';
import { keepsNewMemories, sharedMemoryApplies } from '../../memory-rules.js';
import { SHARED_OWNER } from '../../memory.events.js';
import { MemoryReader } from '../../memory.reader.js';
import { MemoryRepository } from '../../memory.repository.js';
import type { AnswerProposalBody } from '../../memory.schemas.js';
import { MemoryScreening } from '../../memory-screening.js';
import { FLAGGED_MESSAGE } from '../../screening/memory-screen.js';

/** Answers the proposal's id and, when screening refused its text, the exact message to show. */
@Requires(MemoryResolver, (memory, { agentId, proposalId }: AnswerProposal) =>
  memory.proposal(agentId, proposalId, 'memory.personal.write'),
)
export class AnswerProposal extends Command<WriteResult & { readonly message: string | null }> {
  constructor(
    readonly agentId: string,
    readonly proposalId: string,
    readonly body: z.output<typeof AnswerProposalBody>,
    /** Whose usage the screening's model call is (the request's key and user). */
    readonly usage: CallScope,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(AnswerProposal)
export class AnswerProposalHandler implements ICommandHandler<AnswerProposal> {
  constructor(
    private readonly reads: MemoryReads,
    private readonly reader: MemoryReader,
    private readonly memories: MemoryRepository,
    private readonly screening: MemoryScreening,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ agentId, proposalId, body, usage, context, principal }: AnswerProposal) {
    const agent = await this.reads.agent(agentId);
    const userId = this.reads.user(principal);
    const proposal = await this.reads.proposal(agent, proposalId);
    const text = await this.reader.text(proposal.text);
    const source = {
      kind: 'proposal' as const,
      conversationId: proposal.conversationId,
      messageId: proposal.messageId,
    };
    const memoryId = newId('mem');
    // Memory off (always so for a public Agent) stops new memories on every path: only discarding is left.
    if (body.answer !== 'discard' && !keepsNewMemories(agent))
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
      const rate = await this.reader.proposalRate(agent.id, userId, 'confirmed');
      if (rate.count >= rate.limit) throw new ProposalRateLimitedError(rate.limit, rate.retryAfterSeconds);
    }
    if (body.answer !== 'discard' && text !== null) {
      const verdict = await this.screening.screen(
        text,
        { ...usage, agentId: agent.id },
        AbortSignal.timeout(60_000),
      );
      if (verdict.flagged) {
        const position = await this.memories.flagProposal(proposalId, verdict.reasons, context);
        await this.keys.destroy(proposalId);
        return { id: proposalId, position, message: FLAGGED_MESSAGE };
      }
    }
    // A full shared bucket holding nothing of this user's to retire refuses the confirmation (409
    // shared_memory_full) before anything is answered: the proposal stays pending and can still be kept personal.
    if (sharing) await this.memories.checkRoom(agent.id, SHARED_OWNER, userId, source);
    // Shared only while the Agent shares memories; otherwise a confirmation keeps it for the user. A text erased
    // meanwhile (the user cleared their memories, destroying its key) can only be discarded: there is nothing to save.
    const answer =
      text === null
        ? 'discard'
        : body.answer === 'confirm' && !sharedMemoryApplies(agent)
          ? 'personal'
          : body.answer;
    let position = await this.memories.answer(
      { type: 'AnswerProposal', proposalId, agentId: agent.id, userId, answer, memoryId },
      context,
    );
    if (answer !== 'discard' && text !== null)
      position = (
        await this.memories.add(
          {
            agentId: agent.id,
            owner: answer === 'confirm' ? SHARED_OWNER : userId,
            text,
            source,
            addedBy: userId,
            memoryId,
          },
          context,
        )
      ).position;
    await this.keys.destroy(proposalId);
    return { id: proposalId, position, message: null };
  }
}
