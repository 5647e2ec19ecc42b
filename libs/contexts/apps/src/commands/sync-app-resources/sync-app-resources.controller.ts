// POST /apps/{appId}/resources/import and POST /apps/{appId}/sync (our design; admins): an App's documents (an MCP
// server's resources, the texts a URL App declares) as synced documents of an Agent's, a Space's or the Global
// Knowledge.
import { Body, Controller, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import type { SyncedPlace } from '../../mcp/knowledge/synced-document-places.js';
import { ImportAppResource, SyncAppResources } from './sync-app-resources.command.js';

const ImportResourceBody = z
  .strictObject({
    agentId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('An Agent the App is enabled for: the document is its own'),
    spaceId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("A Space with an Agent the App is enabled for: the document is the Space's"),
    scope: z
      .literal('global')
      .optional()
      .describe('The Global Knowledge (every Agent reads it): an App enabled for every Agent'),
    uri: z
      .string()
      .min(1)
      .max(2000)
      .describe('The resource, as the App lists it (`mcp.resources`, or `meta.documents` of a URL App)'),
    name: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .optional()
      .describe("Default: the name the App's `/meta` declares, else the last part of the URI"),
  })
  .refine(
    (body) => [body.agentId, body.spaceId, body.scope].filter((given) => given !== undefined).length === 1,
    { message: 'name one place: agentId, spaceId or scope "global"', path: ['agentId'] },
  );

const placeOf = (body: z.output<typeof ImportResourceBody>): SyncedPlace =>
  body.agentId !== undefined
    ? { scope: 'agent', agentId: body.agentId }
    : body.spaceId !== undefined
      ? { scope: 'space', spaceId: body.spaceId }
      : { scope: 'global' };

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
    summary: "Add an App's resource or declared document to Knowledge as a synced document (admins)",
    description:
      "Into an Agent's own Knowledge (`agentId`), a Space's (`spaceId`: through an Agent of it the App is enabled " +
      'for) or the Global one (`scope: "global"`: an App enabled for every Agent). The document\'s `provider` is ' +
      "`app:<appId>` and its `sourceUri` the resource's; `POST /apps/{appId}/sync` reads it again. Text only: an MCP " +
      "text resource, a URL App's text/markdown or text/plain.",
    body: ImportResourceBody,
    response: { status: 201, schema: ImportedDto, description: 'The document, Pending until ingested' },
    errors: [
      {
        status: 400,
        description: '`app_not_enabled` (for that Agent, no Agent of that Space, not global), invalid body',
      },
      { status: 403, description: '`admin_required`' },
      { status: 404, description: '`app_not_found`, `space_not_found`, `resource_not_found`' },
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
      new ImportAppResource(
        appId,
        { place: placeOf(body), uri: body.uri, name: body.name },
        commandContext(caller),
        principalOf(caller),
      ),
    );
  }

  @ApiRoute({
    tag: 'Apps',
    idempotent: true,
    summary: 'Read every document synced from an App again (admins)',
    description:
      'Changed text is ingested again as a new version; a resource the App no longer has (an MCP server that lost ' +
      'it; a URL App whose `/meta`, as last read, no longer declares it, or that answers 404 or 410) removes its ' +
      'document, whatever its scope; each document says what happened to it.',
    response: { status: 200, schema: SyncDto, description: 'What happened to each synced document' },
    errors: [
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
