// An App as the admin routes answer it: never its token hash, never registry credentials or an MCP server's token.
import { z } from 'zod';
import type { AppView } from '../../apps.read-model.js';

const McpOfferDto = z.object({
  server: z.object({ name: z.string(), version: z.string() }),
  tools: z.array(
    z.object({
      name: z.string(),
      title: z.string().optional(),
      description: z.string(),
      inputSchema: z
        .record(z.string(), z.unknown())
        .describe('JSON Schema of its arguments, as the server gave it'),
      annotations: z.record(z.string(), z.unknown()).optional().describe('Hints (read-only, destructive, …)'),
      ui: z
        .object({
          resourceUri: z.string().optional().describe('The `ui://` MCP App view its results render in'),
          visibility: z
            .array(z.enum(['model', 'app']))
            .optional()
            .describe('Who may call it: the model, its view, or both (unset)'),
        })
        .optional()
        .describe("MCP Apps: the tool's view and visibility (`_meta.ui`)"),
    }),
  ),
  resources: z.array(
    z.object({
      uri: z.string(),
      name: z.string(),
      description: z.string().optional(),
      mimeType: z.string().optional(),
    }),
  ),
  prompts: z.array(z.object({ name: z.string(), description: z.string().optional() })),
});

export const AppDto = z.object({
  id: z.string(),
  name: z.string(),
  source: z.union([
    z.object({ type: z.literal('url'), url: z.string() }),
    z.object({ type: z.literal('container'), image: z.string(), port: z.number() }),
    z.object({
      type: z.literal('mcp'),
      url: z.string(),
      auth: z
        .enum(['none', 'bearer', 'oauth'])
        .describe(
          'How the platform authenticates to it (the token is never answered); `oauth`: each person connects their own account',
        ),
      scopes: z.array(z.string()).readonly().optional().describe('OAuth: the scopes asked for'),
    }),
  ]),
  enablement: z.union([
    z.object({ kind: z.literal('global') }),
    z.object({ kind: z.literal('agents'), agentIds: z.array(z.string()) }),
  ]),
  meta: z
    .object({
      id: z.string(),
      name: z.string(),
      standalone: z.boolean(),
      views: z.array(z.object({ id: z.string(), title: z.string(), path: z.string() })),
      tools: z.array(
        z.object({
          name: z.string(),
          description: z.string(),
          inputSchema: z
            .record(z.string(), z.unknown())
            .describe('JSON Schema of its arguments (`{"type":"object"}` when the App declares none)'),
          path: z.string().describe('Where a call is POSTed, under the App URL (default `/tools/<name>`)'),
          annotations: z
            .object({ readOnlyHint: z.boolean().optional(), destructiveHint: z.boolean().optional() })
            .optional()
            .describe('Hints: a destructive tool starts as `ask`'),
        }),
      ),
      documents: z
        .array(z.object({ uri: z.string(), name: z.string(), path: z.string() }))
        .describe('Texts the App offers as synced Knowledge (`POST /apps/{appId}/resources/import`)'),
    })
    .nullable()
    .describe('What `/meta` said when last read; null before'),
  mcp: McpOfferDto.nullable().describe('What an MCP server offered when last read; null for other Apps'),
  lastError: z.string().nullable().describe('Why `/meta` or the container last failed; null when fine'),
  proxyPath: z
    .string()
    .describe(
      'Where the platform serves it: `/app/{id}`, for a standalone App its stable `/meta` id (its platform id works ' +
        'too). Below it `/admin`, `/user`, `/knowledge` and `/standalone` need a platform session (401 ' +
        '`session_required`), decided on the normalised path the App then receives (an encoded slash, a backslash, ' +
        'a control character or a climb above it: 400 `invalid_app_path`). The App gets `svc_session_token` (a ' +
        "person), `svc_server_url` (the public URL) and `svc_base_path`, none of the caller's cookies or keys; its " +
        'cookies are kept to this path and never a platform cookie, and a redirect that leaves the App answers 502 ' +
        '`app_redirect_refused`.',
    ),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export type AppDtoOutput = z.output<typeof AppDto>;

export const toAppDto = (app: AppView): AppDtoOutput => ({
  id: app.id,
  name: app.name,
  source: app.source,
  enablement:
    app.enablement.kind === 'global'
      ? { kind: 'global' }
      : { kind: 'agents', agentIds: [...app.enablement.agentIds] },
  meta: app.meta
    ? {
        ...app.meta,
        views: app.meta.views.map((v) => ({ ...v })),
        tools: app.meta.tools.map((t) => ({
          ...t,
          inputSchema: { ...(t.inputSchema ?? { type: 'object' }) },
          path: t.path ?? `/tools/${t.name}`,
        })),
        documents: (app.meta.documents ?? []).map((d) => ({ ...d })),
      }
    : null,
  mcp: app.mcp
    ? {
        server: { ...app.mcp.server },
        tools: app.mcp.tools.map(({ ui, ...tool }) => ({
          ...tool,
          inputSchema: { ...tool.inputSchema },
          ...(ui
            ? { ui: { resourceUri: ui.resourceUri, visibility: ui.visibility && [...ui.visibility] } }
            : {}),
        })),
        resources: app.mcp.resources.map((resource) => ({ ...resource })),
        prompts: app.mcp.prompts.map((prompt) => ({ ...prompt })),
      }
    : null,
  lastError: app.lastError,
  proxyPath: `/app/${app.meta?.standalone ? app.meta.id : app.id}`,
  createdAt: app.createdAt,
  updatedAt: app.updatedAt,
});
