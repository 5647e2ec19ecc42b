// The core API's OpenAPI document, assembled from every context's route docs (which reuse the validation schemas).
import { buildOpenApi } from '../../../libs/http/src/openapi.js';
import { SPACE_ROUTES } from '../../../libs/spaces/src/http/spaces.controller.js';
import { AGENT_ROUTES } from '../../../libs/agents/src/http/agents.controller.js';
import { IDENTITY_ROUTES } from '../../../libs/identity/src/http/api-keys.controller.js';
import { LLM_ROUTES } from '../../../libs/llm/src/http/llm.controller.js';
import { USAGE_ROUTES } from '../../../libs/usage/src/http/usage.controller.js';
import { COMPAT_ROUTES } from '../../../libs/gateway/src/http/compat.routes.js';
import { KNOWLEDGE_ROUTES } from '../../../libs/knowledge/src/http/knowledge.controller.js';
import { KNOWLEDGE_INDEX_ROUTES } from '../../../libs/knowledge/src/http/knowledge-index.controller.js';
import { SUMMARY_INDEX_ROUTES } from '../../../libs/knowledge/src/http/summary-index.controller.js';

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
