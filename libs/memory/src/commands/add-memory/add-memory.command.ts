// Adding a memory through the API: screened first (a flagged text is refused with the exact message and recorded,
// reasons only), then added to the caller's personal bucket or, by the Agent's manager, to its shared one; the
// bucket's cap holds here as on every path.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { callerScope } from '#model-gateway';
import { commandContext, type Caller } from '#identity';
import { PlatformError, ValidationError } from '#kernel';
import { MemoryAccess } from '../../memory-access.js';
import { toMemoryDto } from '../../memory-dto.js';
import { sharedMemoryApplies } from '../../memory-rules.js';
import { SHARED_OWNER, type MemorySource } from '../../memory.events.js';
import type { AddMemoryBody, MemoryDto } from '../../memory.schemas.js';
import { MemoryScreening } from '../../memory-screening.js';
import { MemoryStore } from '../../memory-store.js';
import { FLAGGED_MESSAGE } from '../../screening/memory-screen.js';

export class MemoryFlaggedError extends PlatformError {
  constructor() {
    super('unprocessable', 'memory_flagged_unsafe', FLAGGED_MESSAGE, 'text');
  }
}

export const API_SOURCE: MemorySource = { kind: 'api', conversationId: null, messageId: null };

export class AddMemory extends Command<z.output<typeof MemoryDto>> {
  constructor(
    readonly agentId: string,
    readonly body: z.output<typeof AddMemoryBody>,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(AddMemory)
export class AddMemoryHandler implements ICommandHandler<AddMemory> {
  constructor(
    private readonly access: MemoryAccess,
    private readonly store: MemoryStore,
    private readonly screening: MemoryScreening,
  ) {}

  async execute({ agentId, body, caller }: AddMemory) {
    const agent = await this.access.agent(agentId, caller);
    // Memory off (always so for a public Agent) stops new memories on every path, the API's included.
    if (!agent.memoryEnabled || agent.isPublic)
      throw new ValidationError(
        'memory_disabled',
        'this Agent keeps no new memories (memoryEnabled is off, or it is public)',
      );
    const owner = body.bucket === 'shared' ? SHARED_OWNER : caller.userId;
    if (owner === SHARED_OWNER && !sharedMemoryApplies(agent))
      throw new ValidationError(
        'shared_memory_disabled',
        'this Agent keeps no shared memories (sharedMemoryEnabled is off, or it is a personal Agent)',
        'bucket',
      );
    await this.access.requireWritable(agent, owner, caller);
    const context = commandContext(caller);
    const verdict = await this.screening.screen(
      body.text,
      callerScope(caller, 'core', agent.id),
      AbortSignal.timeout(60_000),
    );
    if (verdict.flagged) {
      await this.store.flag(
        { agentId: agent.id, owner, reasons: verdict.reasons, source: API_SOURCE, flaggedBy: caller.userId },
        context,
      );
      throw new MemoryFlaggedError();
    }
    const { memoryId, position } = await this.store.add(
      { agentId: agent.id, owner, text: body.text, source: API_SOURCE, addedBy: caller.userId },
      context,
    );
    await this.store.settle(position);
    const [memory] = await this.store.open([(await this.store.view(memoryId))!]);
    return toMemoryDto(memory!);
  }
}
