// Setting, replacing or removing an API key's usage limit (admins): the API key's own ChangeApiKey command, whose
// decider refuses to set a limit "only if none" on a key that has one (`usage_limit_exists`).
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { ChangeApiKey } from '#identity';
import { AskedAtRoute, type Principal, type UsageLimit } from '#access';
import type { WriteResult } from '#eventsourcing';

@AskedAtRoute('the route row asks usage.read.all (admins); the ChangeApiKey it sends declares its own asks')
export class SetUsageLimit extends Command<WriteResult> {
  constructor(
    readonly apiKeyId: string,
    /** null removes the limit. */
    readonly usageLimit: UsageLimit | null,
    /** POST: only on a key without a limit (PUT replaces one). */
    readonly onlyIfNone: boolean,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(SetUsageLimit)
export class SetUsageLimitHandler implements ICommandHandler<SetUsageLimit> {
  constructor(private readonly bus: CommandBus) {}

  execute({ apiKeyId, usageLimit, onlyIfNone, context, principal }: SetUsageLimit): Promise<WriteResult> {
    return this.bus.execute(
      new ChangeApiKey(
        { apiKeyId, usageLimit, ...(onlyIfNone ? { onlyIfNoUsageLimit: true } : {}) },
        context,
        principal,
      ),
    );
  }
}
