// The instance setting of whether the people directory is open (closed until an admin opens it).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { AskedAtRoute, type Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { PEOPLE_DIRECTORY_ID, type PeopleDirectoryView } from '../../people-directory.events.js';
import { SPACE_SETTINGS } from '../../space-creation.js';

export interface PeopleDirectorySetting {
  readonly open: boolean;
  readonly updatedAt: string | null;
}

/** The setting as the member picker reads it. */
export async function peopleDirectorySetting(readStore: ReadStore): Promise<PeopleDirectorySetting> {
  const view = await readStore.reader<PeopleDirectoryView>(SPACE_SETTINGS).get(PEOPLE_DIRECTORY_ID);
  return view ? { open: view.open, updatedAt: view.updatedAt } : { open: false, updatedAt: null };
}

@AskedAtRoute('the route row asks instance.settings.manage (admins)')
export class GetPeopleDirectory extends Query<PeopleDirectorySetting> {
  constructor(readonly principal: Principal) {
    super();
  }
}

@QueryHandler(GetPeopleDirectory)
export class GetPeopleDirectoryHandler implements IQueryHandler<GetPeopleDirectory> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute(): Promise<PeopleDirectorySetting> {
    return peopleDirectorySetting(this.readStore);
  }
}
