// Adding a memory through the API: screened first (a flagged text is refused with the exact message and recorded,
// reasons only), then added to the principal's personal bucket or, by the Agent's manager, to its shared one; the
// bucket's cap holds here as on every path.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { PlatformError, ValidationError } from '#kernel';
import type { CallScope } from '#model-gateway';
import { MemoryResolver, MemoryReads } from '../../memory-resolver.js';
import { keepsNewMemories, sharedMemoryApplies } from '../../memory-rules.js';
import { SHARED_OWNER, type MemorySource } from '../../memory.events.js';
import type { AddMemoryBody } from '../../memory.schemas.js';
import { MemoryScreening } from '../../memory-screening.js';
import { MemoryRepository } from '../../memory.repository.js';
import { FLAGGED_MESSAGE } from '../../screening/memory-screen.js';

export class MemoryFlaggedError extends PlatformError {
  constructor() {
    super('unprocessable', 'memory_flagged_unsafe', FLAGGED_MESSAGE, 'text');
  }
}

export const API_SOURCE: MemorySource = { kind: 'api', conversationId: null, messageId: null };

/** Answers the new memory's id. */
@Requires(MemoryResolver, (memory, { agentId, body }: AddMemory) => memory.add(agentId, body.bucket))
export class AddMemory extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly body: z.output<typeof AddMemoryBody>,
    /** Whose usage the screening's model call is (the request's key and user). */
    readonly usage: CallScope,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(AddMemory)
export class AddMemoryHandler implements ICommandHandler<AddMemory> {
  constructor(
    private readonly reads: MemoryReads,
    private readonly memories: MemoryRepository,
    private readonly screening: MemoryScreening,
  ) {}

  async execute({ agentId, body, usage, context, principal }: AddMemory): Promise<WriteResult> {
    const agent = await this.reads.agent(agentId);
    const userId = this.reads.user(principal);
    // Memory off (always so for a public Agent) stops new memories on every path, the API's included.
    if (!keepsNewMemories(agent))
      throw new ValidationError(
        'memory_disabled',
        'this Agent keeps no new memories (memoryEnabled is off, or it is public)',
      );
    const owner = body.bucket === 'shared' ? SHARED_OWNER : userId;
    if (owner === SHARED_OWNER && !sharedMemoryApplies(agent))
      throw new ValidationError(
        'shared_memory_disabled',
        'this Agent keeps no shared memories (sharedMemoryEnabled is off, or it is a personal Agent)',
        'bucket',
      );
    const verdict = await this.screening.screen(
      body.text,
      { ...usage, agentId: agent.id },
      AbortSignal.timeout(60_000),
    );
    if (verdict.flagged) {
      await this.memories.flag(
        { agentId: agent.id, owner, reasons: verdict.reasons, source: API_SOURCE, flaggedBy: userId },
        context,
      );
      throw new MemoryFlaggedError();
    }
    const { memoryId, position } = await this.memories.add(
      { agentId: agent.id, owner, text: body.text, source: API_SOURCE, addedBy: userId },
      context,
    );
    return { id: memoryId, position };
  }
}
