// One App (admins).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '#kernel';
import { Requires, type Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { manageApps } from '../../app-resolver.js';
import { APPS, type AppView } from '../../apps.read-model.js';
import { toAppDto, type AppDtoOutput } from './app.dto.js';

@Requires(manageApps)
export class GetApp extends Query<AppDtoOutput> {
  constructor(
    readonly appId: string,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(GetApp)
export class GetAppHandler implements IQueryHandler<GetApp> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ appId }: GetApp): Promise<AppDtoOutput> {
    const app = await this.readStore.reader<AppView>(APPS).get(appId);
    if (!app) throw new NotFoundError('App', appId);
    return toAppDto(app);
  }
}
