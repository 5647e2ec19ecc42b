// Opening or closing the people directory (admins only).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { AskedAtRoute, type Principal } from '#access';
import { peopleDirectoryDecider } from '../../people-directory.decider.js';
import { PEOPLE_DIRECTORY_ID, PEOPLE_DIRECTORY_STREAM } from '../../people-directory.events.js';

@AskedAtRoute('the route row asks instance.settings.manage (admins)')
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

  async execute({ open, context }: SetPeopleDirectory): Promise<WriteResult> {
    const result = await this.aggregates.decide(
      PEOPLE_DIRECTORY_STREAM,
      peopleDirectoryDecider,
      { type: 'SetPeopleDirectory', open },
      context,
    );
    return { id: PEOPLE_DIRECTORY_ID, position: result.position };
  }
}
