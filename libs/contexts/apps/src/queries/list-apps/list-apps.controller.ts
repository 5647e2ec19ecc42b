// GET /apps (our design; admins).
import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, listOf, ZodQuery } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { AppDto } from '../get-app/app.dto.js';
import { ListApps } from './list-apps.query.js';

const AppListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(512).optional(),
});

@Controller('api/v1/core/apps')
export class ListAppsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Apps',
    summary: 'List Apps (admins)',
    query: AppListQuery,
    response: { status: 200, schema: listOf(AppDto), description: 'A page of Apps, oldest first' },
    errors: [400, { status: 403, description: '`admin_required`' }],
  })
  @Get()
  list(
    @Query(new ZodQuery(AppListQuery)) query: z.output<typeof AppListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(
      new ListApps({ limit: query.limit, cursor: query.cursor ?? null }, principalOf(caller)),
    );
  }
}
