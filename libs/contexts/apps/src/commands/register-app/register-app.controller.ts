// POST /apps (our design; admins): register an App by URL, container image or MCP server. The answer carries the App's
// bearer token, once; `/meta` has been read (or its failure recorded as lastError) before it answers, an MCP server's
// offer read with the registration (or 422 `app_unreachable`, nothing registered).
import { Body, Controller, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { APP_ALLOWLIST_PROCESS } from '../../app-allowlist.process.js';
import { APPS_READ_MODEL } from '../../apps.read-model.js';
import { RegisterAppBody } from '../../app.schemas.js';
import { AppDto } from '../../queries/get-app/app.dto.js';
import { GetApp } from '../../queries/get-app/get-app.query.js';
import { DeleteApp } from '../delete-app/delete-app.command.js';
import { RefreshApp } from '../refresh-app/refresh-app.command.js';
import { RegisterApp } from './register-app.command.js';

export const AppWithToken = AppDto.extend({
  token: z
    .string()
    .nullable()
    .describe('The bearer token, shown once (null when an Idempotency-Key replays)'),
});

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/apps')
export class RegisterAppController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Apps',
    summary: 'Register an App (admins)',
    description:
      'A proxied URL (`{ type: "url", url }`) or a container image (`{ type: "container", image, port }`, run through ' +
      "the Docker Engine when one is reachable). Its `/meta` is read at once; a failure is the App's `lastError`. " +
      'Or an MCP server (`{ type: "mcp", url, auth? }`, auth `{ type: "none" }` or `{ type: "bearer", token }`): ' +
      "initialized and its tools, resources and prompts listed before it is registered (the App's `mcp`); one that " +
      'cannot be reached or speaks no MCP is 422 `app_unreachable` and nothing is registered. Link-local and ' +
      'cloud-metadata addresses are refused unless configuration allows them. Registry credentials and bearer ' +
      'tokens are stored sealed, apart from the App, and never returned.',
    body: RegisterAppBody,
    idempotent: true,
    response: { status: 201, schema: AppWithToken, description: 'The App and its bearer token (shown once)' },
    errors: [
      400,
      { status: 403, description: '`admin_required`' },
      {
        status: 422,
        description:
          '`app_unreachable`: the MCP server could not be reached, initialized or listed, or its address is refused',
      },
      {
        status: 409,
        description:
          "`app_id_taken`: a standalone App's `/meta` id is one another App is served under (nothing is registered)",
      },
    ],
  })
  @Post()
  async register(
    @Body(new ZodBody(RegisterAppBody)) body: z.output<typeof RegisterAppBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const principal = principalOf(caller);
    const context = commandContext(caller);
    const { id, token } = await this.writes.send(
      new RegisterApp(
        {
          name: body.name,
          source: body.source,
          enablement: body.enablement,
          ...(body.registryCredentials ? { registryCredentials: body.registryCredentials } : {}),
        },
        context,
        principal,
      ),
      [APPS_READ_MODEL, { projection: APP_ALLOWLIST_PROCESS }],
    );
    // An MCP server was read with its registration; other Apps' /meta is read now.
    if (body.source.type === 'mcp')
      return { ...(await this.queries.execute(new GetApp(id, principal))), token };
    await this.writes.send(new RefreshApp(id, context, principal), [APPS_READ_MODEL]).catch(async (error) => {
      // A standalone /meta id another App is served under: the App is not registered after all.
      if ((error as { code?: string }).code === 'app_id_taken')
        await this.writes.send(new DeleteApp(id, context, principal), [
          APPS_READ_MODEL,
          { projection: APP_ALLOWLIST_PROCESS },
        ]);
      throw error;
    });
    return { ...(await this.queries.execute(new GetApp(id, principal))), token };
  }
}
