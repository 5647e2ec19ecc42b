// POST /memory/{agentId}/proposals/{proposalId} (our design): answer a shared-memory proposal.
import { Body, Controller, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ReadYourWritesBus } from '#eventsourcing';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { callerScope } from '#model-gateway';
import { MEMORY_READ_MODELS } from '../../memory.read-model.js';
import { AnswerProposalBody, ProposalDto } from '../../memory.schemas.js';
import { GetProposal } from '../../queries/get-proposal/get-proposal.query.js';
import { AnswerProposal } from './answer-proposal.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/memory/:agentId/proposals/:proposalId')
export class AnswerProposalController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Memory',
    summary: 'Answer a shared-memory proposal',
    idempotent: true,
    description:
      'confirm: saved as shared, visible to every user of the Agent; personal: saved for me only; discard: not saved. ' +
      "A confirmed proposal counts in the caller's share of the shared bucket (MEMORY_SHARED_PER_USER_CAP): beyond it " +
      "their own least recently used contribution is retired, never anyone else's. " +
      'The text is screened again: if flagged it is not saved, the state is `flagged` and `message` is ' +
      '`Memory not saved - flagged as unsafe.`',
    body: AnswerProposalBody,
    response: { status: 200, schema: ProposalDto, description: 'The proposal, answered' },
    errors: [
      400,
      403,
      { status: 404, description: '`proposal_not_found`' },
      {
        status: 409,
        description:
          "`proposal_already_answered`; `shared_memory_full`: the shared bucket is full and none of its memories is the caller's to retire (the proposal stays pending)",
      },
      {
        status: 429,
        description:
          '`memory_proposal_rate_limited`: MEMORY_PROPOSALS_PER_HOUR confirmations on this Agent in the last hour (Retry-After); the proposal stays pending',
      },
    ],
  })
  @Post()
  @HttpCode(200)
  async answer(
    @Param('agentId') agentId: string,
    @Param('proposalId') proposalId: string,
    @Body(new ZodBody(AnswerProposalBody)) body: z.output<typeof AnswerProposalBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const principal = principalOf(caller);
    const usage = callerScope(caller, 'core', agentId);
    const { message } = await this.writes.send(
      new AnswerProposal(agentId, proposalId, body, usage, commandContext(caller), principal),
      MEMORY_READ_MODELS,
    );
    return { ...(await this.queries.execute(new GetProposal(agentId, proposalId, principal))), message };
  }
}
