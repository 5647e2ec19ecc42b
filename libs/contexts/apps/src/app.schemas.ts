// Request bodies of the Apps admin routes.
import { z } from 'zod';

const AgentIds = z.array(z.string().min(1).max(200)).max(1000);

export const Enablement = z
  .union([
    z.object({ kind: z.literal('global') }).strict(),
    z.object({ kind: z.literal('agents'), agentIds: AgentIds }).strict(),
  ])
  .describe('Every Agent (`global`, personal Agents included), or the Agents listed');

const HttpUrl = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .transform((url) => url.replace(/\/+$/, ''));

export const RegisterAppBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    source: z.union([
      z.object({ type: z.literal('url'), url: HttpUrl }).strict(),
      z
        .object({
          type: z.literal('container'),
          image: z
            .string()
            .min(1)
            .max(500)
            .regex(/^[A-Za-z0-9][A-Za-z0-9._/:@-]*$/, 'an image reference'),
          port: z.number().int().min(1).max(65_535),
        })
        .strict(),
      z
        .object({
          type: z.literal('mcp'),
          url: HttpUrl.describe(
            "The MCP server's streamable HTTP endpoint (the older HTTP+SSE one works too)",
          ),
          auth: z
            .union([
              z.object({ type: z.literal('none') }).strict(),
              z.object({ type: z.literal('bearer'), token: z.string().min(1).max(8000) }).strict(),
              z
                .object({
                  type: z.literal('oauth'),
                  clientId: z.string().min(1).max(2000).optional(),
                  clientSecret: z.string().min(1).max(8000).optional(),
                  scopes: z
                    .array(
                      z
                        .string()
                        .min(1)
                        .max(200)
                        .regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/),
                    )
                    .max(50)
                    .optional(),
                })
                .strict()
                .refine((auth) => !auth.clientSecret || auth.clientId, {
                  message: 'clientSecret needs clientId',
                  path: ['clientSecret'],
                }),
            ])
            .default({ type: 'none' })
            .describe(
              'A static bearer token (stored sealed, apart from the App, and never returned), or OAuth 2.1: each ' +
                'person connects their own account; a pre-registered client (`clientId`, `clientSecret`, kept ' +
                'sealed) or one registered dynamically, and the `scopes` to ask for',
            ),
        })
        .strict(),
    ]),
    enablement: Enablement.default({ kind: 'agents', agentIds: [] }),
    registryCredentials: z
      .object({
        username: z.string().min(1).max(500),
        password: z.string().min(1).max(5000),
        serveraddress: z.string().max(500).optional(),
      })
      .strict()
      .optional()
      .describe(
        'Container Apps from a private registry: stored sealed, apart from the App, and never returned',
      ),
  })
  .strict();

export const ChangeAppBody = z
  .object({ name: z.string().trim().min(1).max(200).optional(), enablement: Enablement.optional() })
  .strict();
