// The core API's OpenAPI document, assembled from every context's route docs (which reuse the validation schemas).
import { buildOpenApi } from '#http';
import { SPACE_ROUTES } from '#spaces/http/spaces.controller';
import { AGENT_ROUTES } from '#agents/http/agents.controller';
import { IDENTITY_ROUTES } from '#identity';
import { LLM_ROUTES } from '#llm/http/llm.controller';
import { USAGE_ROUTES } from '#usage';
import { COMPAT_ROUTES } from '#gateway/http/compat.routes';
import { KNOWLEDGE_ROUTES } from '#knowledge/http/knowledge.controller';
import { KNOWLEDGE_INDEX_ROUTES } from '#knowledge/http/knowledge-index.controller';
import { SUMMARY_INDEX_ROUTES } from '#knowledge/http/summary-index.controller';

export const OPENAPI_DOCUMENT = Symbol('OPENAPI_DOCUMENT');

export const openApiDocument = () =>
  buildOpenApi(
    {
      title: 'Agent Platform API (core and OpenAI-compatible)',
      version: '1.0.0',
      description:
        'Event-sourced Agent Platform. Authenticate with `x-api-key`. Errors use one envelope: `{ "error": { "type", "code", "message", "param"? } }`. Lists take `?limit=&cursor=` and answer `{ "data": [...], "nextCursor": string|null }`. A write answers once its change is readable (read-your-writes). POSTs accept an `Idempotency-Key` header. The OpenAI-compatible gateway under `/api/compat/v1` also takes `Authorization: Bearer <key>` and answers errors in the chat-completions envelope `{ "error": { "message", "type", "param", "code" } }`.',
    },
    [
      ...SPACE_ROUTES,
      ...AGENT_ROUTES,
      ...IDENTITY_ROUTES,
      ...LLM_ROUTES,
      ...USAGE_ROUTES,
      ...KNOWLEDGE_ROUTES,
      ...KNOWLEDGE_INDEX_ROUTES,
      ...SUMMARY_INDEX_ROUTES,
      ...COMPAT_ROUTES,
      {
        method: 'get',
        path: '/health',
        tag: 'Operations',
        summary: 'Liveness, readiness and projection lag',
        public: true,
        response: { status: 200, description: 'Ready (503 while starting)' },
      },
      {
        method: 'get',
        path: '/metrics',
        tag: 'Operations',
        summary: 'Prometheus metrics',
        public: true,
        response: { status: 200, description: 'Text exposition format' },
      },
    ],
  );
