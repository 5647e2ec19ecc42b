// POST /apps/{appId}/resources/import and POST /apps/{appId}/sync (our design; admins): an MCP App's resources as
// synced documents of an Agent's Knowledge.
import { Body, Controller, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ImportAppResource, SyncAppResources } from './sync-app-resources.command.js';

const ImportResourceBody = z.strictObject({
  agentId: z.string().min(1).max(200).describe('An Agent the App is enabled for: the document is its own'),
  uri: z.string().min(1).max(2000).describe('The resource, as the App lists it (`mcp.resources`)'),
  name: z.string().trim().min(1).max(255).optional().describe('Default: the last part of the URI'),
});

const ImportedDto = z.object({ documentId: z.string() });

const SyncDto = z.object({
  data: z.array(
    z.object({
      documentId: z.string(),
      uri: z.string(),
      outcome: z
        .enum(['unchanged', 'updated', 'removed', 'failed'])
        .describe('updated: ingested again as a new version; removed: the server no longer has it'),
      error: z.string().optional(),
    }),
  ),
});

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/apps/:appId')
export class SyncAppResourcesController {
  constructor(private readonly commands: CommandBus) {}

  @ApiRoute({
    tag: 'Apps',
    idempotent: true,
    summary: "Add an MCP App's resource to an Agent's Knowledge as a synced document (admins)",
    description:
      "The document's `provider` is `app:<appId>` and its `sourceUri` the resource's; `POST /apps/{appId}/sync` reads " +
      'it again. Text resources only.',
    body: ImportResourceBody,
    response: { status: 201, schema: ImportedDto, description: 'The document, Pending until ingested' },
    errors: [
      { status: 400, description: '`not_an_mcp_app`, `app_not_enabled` (for that Agent), invalid body' },
      { status: 403, description: '`admin_required`' },
      { status: 404, description: '`app_not_found`, `resource_not_found`' },
      { status: 422, description: '`app_unreachable`: the server, or a resource that is not text' },
    ],
  })
  @Post('resources/import')
  @HttpCode(201)
  import(
    @Param('appId') appId: string,
    @Body(new ZodBody(ImportResourceBody)) body: z.output<typeof ImportResourceBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.commands.execute(
      new ImportAppResource(appId, body, commandContext(caller), principalOf(caller)),
    );
  }

  @ApiRoute({
    tag: 'Apps',
    idempotent: true,
    summary: 'Read every document synced from an MCP App again (admins)',
    description:
      'Changed text is ingested again as a new version; a resource the server no longer has removes its document; ' +
      'each document says what happened to it.',
    response: { status: 200, schema: SyncDto, description: 'What happened to each synced document' },
    errors: [
      { status: 400, description: '`not_an_mcp_app`' },
      { status: 403, description: '`admin_required`' },
      404,
      { status: 422, description: '`app_unreachable`' },
    ],
  })
  @Post('sync')
  @HttpCode(200)
  async sync(@Param('appId') appId: string, @CurrentCaller() caller: Caller) {
    const data = await this.commands.execute(
      new SyncAppResources(appId, commandContext(caller), principalOf(caller)),
    );
    return { data };
  }
}
