// GET /apps/{appId} (our design; admins).
import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { AppDto } from './app.dto.js';
import { GetApp } from './get-app.query.js';

@Controller('api/v1/core/apps')
export class GetAppController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Apps',
    summary: 'An App (admins)',
    response: { status: 200, schema: AppDto, description: 'The App' },
    errors: [{ status: 403, description: '`admin_required`' }, 404],
  })
  @Get(':appId')
  get(@Param('appId') appId: string, @CurrentCaller() caller: Caller) {
    return this.queries.execute(new GetApp(appId, principalOf(caller)));
  }
}
