// The core API's OpenAPI document, assembled from the documentation each route carries (`@ApiRoute`, reusing the
// validation schemas) over every controller the application registered. Built at its first request, not at start:
// turning every route's zod schemas into JSON Schema took ~90 ms of the api's start-up (CPU profile), for a document
// few clients ever ask for.
import type { Type } from '@nestjs/common';
import type { DiscoveryService } from '@nestjs/core';
import { buildOpenApi, routeDocs } from '#http';
import { PLATFORM_VERSION } from './version.js';

export const OPENAPI_DOCUMENT = Symbol('OPENAPI_DOCUMENT');

/** The document, built once at the first call. */
export type OpenApiDocument = () => object;

export const openApiDocument = (discovery: DiscoveryService): OpenApiDocument => {
  let document: object | undefined;
  return () => (document ??= build(discovery));
};

const build = (discovery: DiscoveryService): object =>
  buildOpenApi(
    {
      title: 'Agent Platform API (core and OpenAI-compatible)',
      version: PLATFORM_VERSION,
      description:
        'Event-sourced Agent Platform. Authenticate with `x-api-key`. Errors use one envelope: `{ "error": { "type", "code", "message", "param"? } }`. Lists take `?limit=&cursor=` and answer `{ "data": [...], "nextCursor": string|null }`. A write answers once its change is readable (read-your-writes). POSTs accept an `Idempotency-Key` header. The OpenAI-compatible gateway under `/api/compat/v1` also takes `Authorization: Bearer <key>` and answers errors in the chat-completions envelope `{ "error": { "message", "type", "param", "code" } }`; its Anthropic Messages route (`POST /api/compat/v1/messages`) answers them in the Anthropic shape `{ "type": "error", "error": { "type", "message" } }`. The bridge (`/api/v1/bridge`) takes only `Authorization: Bearer <App token | svc_session_token>`.',
    },
    routeDocs(
      discovery
        .getControllers()
        .map((wrapper) => wrapper.metatype as Type | null)
        .filter((controller): controller is Type => controller !== null),
    ),
  );
