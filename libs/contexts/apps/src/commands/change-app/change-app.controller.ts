// PATCH /apps/{appId} (our design; admins): rename an App, or enable it for other Agents or globally.
import { Body, Controller, Param, Patch } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { APP_ALLOWLIST_PROCESS } from '../../app-allowlist.process.js';
import { APPS_READ_MODEL } from '../../apps.read-model.js';
import { ChangeAppBody } from '../../app.schemas.js';
import { AppDto } from '../../queries/get-app/app.dto.js';
import { GetApp } from '../../queries/get-app/get-app.query.js';
import { ChangeApp } from './change-app.command.js';

@Controller('api/v1/core/apps')
export class ChangeAppController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Apps',
    summary: 'Rename an App or change where it is enabled (admins)',
    body: ChangeAppBody,
    response: { status: 200, schema: AppDto, description: 'The App' },
    errors: [400, { status: 403, description: '`admin_required`' }, 404],
  })
  @Patch(':appId')
  async change(
    @Param('appId') appId: string,
    @Body(new ZodBody(ChangeAppBody)) body: z.output<typeof ChangeAppBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const principal = principalOf(caller);
    await this.writes.send(
      new ChangeApp(
        appId,
        {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.enablement ? { enablement: body.enablement } : {}),
        },
        commandContext(caller),
        principal,
      ),
      [APPS_READ_MODEL, { projection: APP_ALLOWLIST_PROCESS }],
    );
    return this.queries.execute(new GetApp(appId, principal));
  }
}
