// Setting the instance roles allowed to create shared Spaces (admins only; admins always may create them).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ForbiddenError } from '#kernel';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { authorize, type Principal } from '#identity';
import { SPACE_CREATION_STREAM, spaceCreationDecider, type InstanceRole } from '../../space-creation.js';

export class SetSpaceCreationRoles extends Command<WriteResult> {
  constructor(
    readonly creatorRoles: readonly InstanceRole[],
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(SetSpaceCreationRoles)
export class SetSpaceCreationRolesHandler implements ICommandHandler<SetSpaceCreationRoles> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ creatorRoles, context, principal }: SetSpaceCreationRoles): Promise<WriteResult> {
    const decision = authorize(principal, 'instance.settings.manage', null);
    if (!decision.allow) throw new ForbiddenError(decision.reason, 'only admins change instance settings');
    const result = await this.aggregates.decide(
      SPACE_CREATION_STREAM,
      spaceCreationDecider,
      { type: 'SetSpaceCreationRoles', creatorRoles },
      context,
    );
    return { id: 'space-creation', position: result.position };
  }
}
