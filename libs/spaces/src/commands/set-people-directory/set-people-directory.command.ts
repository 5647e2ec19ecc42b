// Opening or closing the people directory (admins only).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ForbiddenError } from '#kernel';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { authorize, type Principal } from '#identity';
import {
  PEOPLE_DIRECTORY_ID,
  PEOPLE_DIRECTORY_STREAM,
  peopleDirectoryDecider,
} from '../../people-directory.js';

export class SetPeopleDirectory extends Command<WriteResult> {
  constructor(
    readonly open: boolean,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(SetPeopleDirectory)
export class SetPeopleDirectoryHandler implements ICommandHandler<SetPeopleDirectory> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ open, context, principal }: SetPeopleDirectory): Promise<WriteResult> {
    const decision = authorize(principal, 'instance.settings.manage', null);
    if (!decision.allow) throw new ForbiddenError(decision.reason, 'only admins change instance settings');
    const result = await this.aggregates.decide(
      PEOPLE_DIRECTORY_STREAM,
      peopleDirectoryDecider,
      { type: 'SetPeopleDirectory', open },
      context,
    );
    return { id: PEOPLE_DIRECTORY_ID, position: result.position };
  }
}
