// Setting the instance roles allowed to create shared Spaces (admins only; admins always may create them).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { AskedAtRoute, type Principal } from '#access';
import { SPACE_CREATION_STREAM, type InstanceRole } from '../../space-creation.js';
import { spaceCreationDecider } from '../../space-creation.decider.js';

@AskedAtRoute('the route row asks instance.settings.manage (admins)')
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

  async execute({ creatorRoles, context }: SetSpaceCreationRoles): Promise<WriteResult> {
    const result = await this.aggregates.decide(
      SPACE_CREATION_STREAM,
      spaceCreationDecider,
      { type: 'SetSpaceCreationRoles', creatorRoles },
      context,
    );
    return { id: 'space-creation', position: result.position };
  }
}
