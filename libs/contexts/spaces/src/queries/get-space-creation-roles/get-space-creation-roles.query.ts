// The instance setting of who may create shared Spaces (everyone until an admin sets it).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { AskedAtRoute, type Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import {
  INSTANCE_ROLES,
  SPACE_CREATION_ID,
  SPACE_SETTINGS,
  type InstanceRole,
  type SpaceCreationView,
} from '../../space-creation.js';

export interface SpaceCreationSetting {
  readonly creatorRoles: readonly InstanceRole[];
  readonly updatedAt: string | null;
}

/** The setting as the policy reads it: null while none is set (everyone may). */
export async function spaceCreationSetting(
  readStore: ReadStore,
): Promise<{ readonly creatorRoles: readonly InstanceRole[] } | null> {
  const view = await readStore.reader<SpaceCreationView>(SPACE_SETTINGS).get(SPACE_CREATION_ID);
  return view ? { creatorRoles: view.creatorRoles } : null;
}

@AskedAtRoute('the route row asks instance.settings.manage (admins)')
export class GetSpaceCreationRoles extends Query<SpaceCreationSetting> {
  constructor(readonly principal: Principal) {
    super();
  }
}

@QueryHandler(GetSpaceCreationRoles)
export class GetSpaceCreationRolesHandler implements IQueryHandler<GetSpaceCreationRoles> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute(): Promise<SpaceCreationSetting> {
    const view = await this.readStore.reader<SpaceCreationView>(SPACE_SETTINGS).get(SPACE_CREATION_ID);
    return view
      ? { creatorRoles: view.creatorRoles, updatedAt: view.updatedAt }
      : { creatorRoles: INSTANCE_ROLES, updatedAt: null };
  }
}
