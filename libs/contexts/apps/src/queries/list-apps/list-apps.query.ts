// The Apps, oldest first, a page at a time (admins).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { Requires, type Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { manageApps } from '../../app-resolver.js';
import { APPS, type AppView } from '../../apps.read-model.js';
import { toAppDto, type AppDtoOutput } from '../get-app/app.dto.js';

@Requires(manageApps)
export class ListApps extends Query<{ data: AppDtoOutput[]; nextCursor: string | null }> {
  constructor(
    readonly page: { readonly limit: number; readonly cursor: string | null },
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(ListApps)
export class ListAppsHandler implements IQueryHandler<ListApps> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ page }: ListApps) {
    const found = await this.readStore
      .reader<AppView>(APPS)
      .find({}, { sort: { field: 'createdAt' }, limit: page.limit, cursor: page.cursor });
    return { data: found.data.map(toAppDto), nextCursor: found.nextCursor };
  }
}
