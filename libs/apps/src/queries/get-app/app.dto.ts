// An App as the admin routes answer it: never its token hash, never registry credentials.
import { z } from 'zod';
import type { AppView } from '../../apps.read-model.js';

export const AppDto = z.object({
  id: z.string(),
  name: z.string(),
  source: z.union([
    z.object({ type: z.literal('url'), url: z.string() }),
    z.object({ type: z.literal('container'), image: z.string(), port: z.number() }),
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
      tools: z.array(z.object({ name: z.string(), description: z.string() })),
    })
    .nullable()
    .describe('What `/meta` said when last read; null before'),
  lastError: z.string().nullable().describe('Why `/meta` or the container last failed; null when fine'),
  proxyPath: z
    .string()
    .describe(
      "Where the platform serves it: `/app/{id}`; a standalone App's stable `/meta` id (its platform id works too)",
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
        tools: app.meta.tools.map((t) => ({ ...t })),
      }
    : null,
  lastError: app.lastError,
  proxyPath: `/app/${app.meta?.standalone ? app.meta.id : app.id}`,
  createdAt: app.createdAt,
  updatedAt: app.updatedAt,
});
