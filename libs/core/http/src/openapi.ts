// OpenAPI 3.1 assembled from the same zod schemas that validate requests, so the document cannot drift from them.
// Each route's documentation sits on the route (`@ApiRoute`); its method and path are read from Nest's own metadata.
import { RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { z } from 'zod';

export interface RouteDoc {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  readonly path: string;
  readonly summary: string;
  readonly tag: string;
  readonly description?: string;
  readonly body?: z.ZodType;
  readonly query?: z.ZodObject;
  readonly response?: { readonly status: number; readonly schema?: z.ZodType; readonly description: string };
  /** Error statuses; with a description when the route's reason is worth naming (an error code, a condition). */
  readonly errors?: readonly (number | { readonly status: number; readonly description: string })[];
  readonly idempotent?: boolean;
  readonly public?: boolean;
  /** Also takes `Authorization: Bearer <key>` (the compatible API). */
  readonly bearer?: boolean;
  /** Largest request body this route takes, when it is not DEFAULT_BODY_LIMIT_BYTES (the server enforces it: 413). */
  readonly bodyLimitBytes?: number;
}

/** Largest request body of a route that names no limit of its own; beyond it the answer is 413 `body_too_large`. */
export const DEFAULT_BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/**
 * The body limits routes declare, keyed `METHOD /path/{param}`, for the server to apply when it registers each route
 * (the documentation and the enforcement come from the same declaration).
 */
export function routeBodyLimits(routes: readonly RouteDoc[]): Map<string, number> {
  return new Map(
    routes
      .filter((route) => route.bodyLimitBytes !== undefined)
      .map((route) => [`${route.method.toUpperCase()} ${route.path}`, route.bodyLimitBytes!]),
  );
}

/** A Fastify route path (`/a/:id`) in the form of the documented paths (`/a/{id}`). */
export const documentedPath = (url: string): string => url.replace(/:(\w+)/g, '{$1}');

/** What a route's decorator says; its method and path come from `@Get`/`@Post`… and `@Controller`. */
export type ApiRouteDoc = Omit<RouteDoc, 'method' | 'path'>;

const API_ROUTE = Symbol('api-route');

/** The OpenAPI documentation of one route, beside it. */
export const ApiRoute =
  (doc: ApiRouteDoc): MethodDecorator =>
  (_target, _key, descriptor) => {
    Reflect.defineMetadata(API_ROUTE, doc, descriptor.value as object);
  };

const joinPath = (...parts: (string | undefined)[]): string =>
  `/${parts
    .flatMap((part) => (part ?? '').split('/'))
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `{${segment.slice(1)}}` : segment))
    .join('/')}`;

/** The documented routes of these controllers, in declaration order. */
export function routeDocs(controllers: readonly Type[]): RouteDoc[] {
  const routes: RouteDoc[] = [];
  for (const controller of controllers) {
    // A controller may answer under several prefixes (a core route the bridge offers too): one doc per prefix.
    const prefixes = ([] as (string | undefined)[]).concat(
      Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined,
    );
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      // The descriptor's value, never the property: reading a getter would run it on the prototype.
      const handler: unknown = Object.getOwnPropertyDescriptor(controller.prototype, name)?.value;
      if (typeof handler !== 'function') continue;
      const doc = Reflect.getMetadata(API_ROUTE, handler) as ApiRouteDoc | undefined;
      if (!doc) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      for (const prefix of prefixes)
        routes.push({
          ...doc,
          method: method.toLowerCase() as RouteDoc['method'],
          path: joinPath(prefix, path),
        });
    }
  }
  return routes;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: the envelope names the field in `param`',
  401: 'Missing, unknown or revoked API key',
  403: 'The API key is not allowed this operation or Agent',
  404: 'Unknown id',
  409: 'Conflict with the current state (e.g. a name already in use)',
  413: 'The request body is over the limit named in the request body description (code body_too_large)',
  422: 'The request was understood but could not be carried out',
  429: "The API key's usage limit is exceeded (code usage_limit_exceeded)",
  502: 'A model upstream failed',
  504: 'A model upstream did not answer in time',
};

const mib = (bytes: number): string => `${Math.round((bytes / 1024 / 1024) * 100) / 100} MiB`;

const pathParams = (path: string) =>
  [...path.matchAll(/\{(\w+)\}/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));

// Over 100 lines on purpose: one document assembled from every route's metadata in one pass.
export function buildOpenApi(
  info: { title: string; version: string; description: string },
  routes: readonly RouteDoc[],
) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const queryParams = route.query
      ? Object.entries(route.query.shape).map(([name, schema]) => ({
          name,
          in: 'query',
          required: !(schema as z.ZodType).safeParse(undefined).success,
          schema: z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }),
        }))
      : [];
    const headerParams = route.idempotent
      ? [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'A retried request with the same key returns the first result and appends nothing.',
            schema: { type: 'string', maxLength: 255 },
          },
        ]
      : [];
    const responses: Record<string, unknown> = {};
    if (route.response) {
      responses[String(route.response.status)] = {
        description: route.response.description,
        ...(route.response.schema
          ? {
              content: {
                'application/json': {
                  schema: z.toJSONSchema(route.response.schema, { io: 'output', unrepresentable: 'any' }),
                },
              },
            }
          : {}),
      };
    }
    const errors = route.errors ?? [];
    const tooLarge =
      route.body && !errors.some((error) => (typeof error === 'number' ? error : error.status) === 413)
        ? [413]
        : [];
    for (const error of [...(route.public ? [] : [401]), ...errors, ...tooLarge]) {
      const status = typeof error === 'number' ? error : error.status;
      responses[String(status)] = {
        description: typeof error === 'number' ? (ERROR_DESCRIPTIONS[status] ?? 'Error') : error.description,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
    paths[route.path] ??= {};
    paths[route.path]![route.method] = {
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      parameters: [...pathParams(route.path), ...queryParams, ...headerParams],
      ...(route.body
        ? {
            requestBody: {
              required: true,
              description: `At most ${route.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES} bytes (${mib(route.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES)}); a larger body is refused with 413 \`body_too_large\`.`,
              content: {
                'application/json': {
                  schema: z.toJSONSchema(route.body, { io: 'input', unrepresentable: 'any' }),
                },
              },
            },
          }
        : {}),
      responses,
      ...(route.public
        ? { security: [] }
        : route.bearer
          ? { security: [{ apiKey: [] }, { bearer: [] }] }
          : {}),
    };
  }
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        bearer: { type: 'http', scheme: 'bearer', description: 'The same API key, for OpenAI SDKs' },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['type', 'code', 'message'],
              properties: {
                type: { type: 'string' },
                code: { type: 'string' },
                message: { type: 'string' },
                param: { type: 'string', description: 'The request field at fault, when there is one' },
              },
            },
          },
        },
      },
    },
  };
}

/** `?limit=&cursor=` of every list; a list answers `{ data, nextCursor }`. */
export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('Page size, 1 to 200 (default 50)'),
  cursor: z.string().min(1).max(512).optional().describe('The nextCursor of the previous page'),
});

export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), nextCursor: z.string().nullable().describe('null on the last page') });
