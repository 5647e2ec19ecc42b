// POST /apps/{appId}/refresh (our design; admins): read the App's `/meta` again (a container App is started first; an
// MCP server is initialized and listed again).
import { Controller, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { APPS_READ_MODEL } from '../../apps.read-model.js';
import { AppDto } from '../../queries/get-app/app.dto.js';
import { GetApp } from '../../queries/get-app/get-app.query.js';
import { RefreshApp } from './refresh-app.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/apps')
export class RefreshAppController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Apps',
    summary: "Read the App's /meta again, or its MCP server's offer (admins)",
    idempotent: true,
    response: { status: 200, schema: AppDto, description: 'The App, with its meta or its lastError' },
    errors: [
      { status: 403, description: '`admin_required`' },
      404,
      {
        status: 422,
        description: '`app_unreachable`: the MCP server could not be read (its last offer stays)',
      },
      {
        status: 409,
        description:
          "`app_id_taken`: the App's `/meta` is standalone with an id another App is served under (not recorded)",
      },
    ],
  })
  @Post(':appId/refresh')
  @HttpCode(200)
  async refresh(@Param('appId') appId: string, @CurrentCaller() caller: Caller) {
    const principal = principalOf(caller);
    await this.writes.send(new RefreshApp(appId, commandContext(caller), principal), [APPS_READ_MODEL]);
    return this.queries.execute(new GetApp(appId, principal));
  }
}
