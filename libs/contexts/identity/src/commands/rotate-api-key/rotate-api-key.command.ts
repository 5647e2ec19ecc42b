// Rotating any API key (admins): its replacement keeps its name, owner, grants, admin rights and usage limit; the old
// key is refused from the answer on.
import { Inject } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ConflictError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import type { CommandContext } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { manageKeys } from '../../api-key-resolver.js';
import { keyById, replaceApiKey, type IssuedKey } from './replace-api-key.js';

@Requires(manageKeys)
export class RotateApiKey extends Command<IssuedKey> {
  constructor(
    readonly apiKeyId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(RotateApiKey)
export class RotateApiKeyHandler implements ICommandHandler<RotateApiKey> {
  constructor(
    private readonly bus: CommandBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ apiKeyId, context, principal }: RotateApiKey): Promise<IssuedKey> {
    const old = await keyById(this.readStore, apiKeyId);
    if (old.revoked)
      throw new ConflictError('api_key_revoked', 'a revoked key is not rotated: issue a new one');
    // The bootstrap key is ADMIN_API_KEY's: the variable rotates it, and the next start would revoke a replacement.
    if (old.bootstrap)
      throw new ConflictError(
        'bootstrap_key',
        'ADMIN_API_KEY is rotated by changing the variable and restarting',
      );
    return replaceApiKey(this.bus, old, context, principal);
  }
}
