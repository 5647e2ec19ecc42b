// Who may call each route: one row per `METHOD /path` the application registers (paths as in the OpenAPI document).
// A row names the policy action that guards the route (the guard asks it when it reads nothing but the principal; else
// the gate asks it from the declaration of the command or query the route sends), `{ each: action }` for a list
// filtered item by item, or `public` for a route without credentials. The generated matrix
// (test/authorization-matrix.e2e.spec.ts) calls every registered route as every kind of principal and fails for a
// route without a row here, or whose answers disagree with the policy. Adding a route: add its row.
// Over 300 lines on purpose: it is the table, one row per route, and a table read in one place is its point.
import type { Action } from './policy/policy.js';

/**
 * `public`: no credential. An action: the caller's principal must be allowed it. `{ each }`: a list filtered item by
 * item. `{ embed }`: no credential, and the route asks the policy itself whether an embed visitor may do the action
 * on the Agent it names (the embed page of a public Agent; 403 `Agent is not public` otherwise).
 */
export type RouteRule =
  | 'public'
  | Action
  | { readonly each: Action }
  | { readonly embed: Action }
  | { readonly appProxy: { readonly sessionOnly: readonly string[] } };

/**
 * The App proxy (a raw route, every method, `/app/{appId}` and below; `{appId}` is the platform's id or a standalone
 * App's stable `/meta` id): its session-only sub-paths (spec, Apps rule 5) need a signed-in person, a platform session
 * (or, on APP_ORIGIN, a view's ticket for this App); keys and App tokens are no person there (401). Every other path is
 * the App's own to authenticate (its API, OAuth callbacks, webhooks) and is forwarded without a credential.
 */
export const APP_PROXY_ROUTE = 'ALL /app/{appId}/{path}';
const APP_PROXY_RULE = { appProxy: { sessionOnly: ['admin', 'user', 'knowledge', 'standalone'] } } as const;

const CORE = '/api/v1/core';
const K = `${CORE}/knowledge/{agentId}`;
const LLM = `${CORE}/llm/{agentId}`;
const CONVERSATION = `${LLM}/conversation/{conversationId}`;
const MEMORY = `${CORE}/memory/{agentId}`;
const BRIDGE = '/api/v1/bridge/agents/{agentId}';

export const ROUTE_AUTHORIZATION: Readonly<Record<string, RouteRule>> = {
  // Operations and documentation: no credential.
  'GET /health': 'public',
  'GET /health/live': 'public',
  'GET /health/ready': 'public',
  'GET /metrics': 'public',
  [`GET ${CORE}/openapi.json`]: 'public',
  [`GET ${CORE}/docs`]: 'public',
  [`GET ${CORE}/docs/{asset}`]: 'public',

  // The web app's pages and assets, the embed page (it asks the policy itself: an embed visitor of a public Agent)
  // and the embed scripts: no credential (the app signs in through the API).
  'GET /': 'public',
  'GET /sign-in': 'public',
  'GET /memories': 'public',
  'GET /developer': 'public',
  'GET /usage': 'public',
  'GET /admin': 'public',
  'GET /apps': 'public',
  'GET /operations': 'public',
  'GET /audit': 'public',
  'GET /replay': 'public',
  'GET /knowledge': 'public',
  'GET /profile': 'public',
  'GET /spaces/new': 'public',
  'GET /invitations/accept': 'public',
  'GET /password-reset': 'public',
  'GET /space/{spaceId}/agent/{agentId}': 'public',
  'GET /space/{spaceId}/settings': 'public',
  'GET /space/{spaceId}/members': 'public',
  'GET /space/{spaceId}/prompts': 'public',
  'GET /chat/{agentId}': 'public',
  'GET /agent/{agentId}/settings': 'public',
  'GET /agent/{agentId}/history': 'public',
  'GET /assets/{asset}': 'public',
  'GET /favicon.svg': 'public',
  'GET /embed/widget.js': 'public',
  'GET /embed/bubble.js': 'public',
  'GET /embed/{agentId}': { embed: 'agent.use' },
  'POST /api/v1/embed/{agentId}/session': { embed: 'agent.use' },

  // The audit trail (the whole of it: admins; a Space and what is inside it: whoever may change the Space).
  [`GET ${CORE}/audit`]: 'audit.read',
  [`GET ${CORE}/audit/export`]: 'audit.read',
  [`POST ${CORE}/replays`]: 'audit.replay',
  // Which answers used a source: each answer filtered by the policy (admins all; a user their own).
  [`GET ${CORE}/provenance`]: { each: 'provenance.read' },

  // Spaces.
  [`GET ${CORE}/spaces`]: { each: 'space.read' },
  [`POST ${CORE}/spaces`]: 'space.create',
  [`GET ${CORE}/spaces/{spaceId}`]: 'space.read',
  [`PATCH ${CORE}/spaces/{spaceId}`]: 'space.change',
  [`DELETE ${CORE}/spaces/{spaceId}`]: 'space.change',
  [`GET ${CORE}/spaces/{spaceId}/members`]: 'space.members.read',
  [`POST ${CORE}/spaces/{spaceId}/members`]: 'space.member.change',
  [`PATCH ${CORE}/spaces/{spaceId}/members/{userId}`]: 'space.member.change',
  [`DELETE ${CORE}/spaces/{spaceId}/members/{userId}`]: 'space.member.change',
  [`POST ${CORE}/spaces/{spaceId}/leave`]: 'space.member.change',
  [`GET ${CORE}/spaces/{spaceId}/member-candidates`]: 'space.member.candidates',
  [`GET ${CORE}/spaces/{spaceId}/prompts`]: 'prompt.read',
  [`POST ${CORE}/spaces/{spaceId}/prompts`]: 'prompt.change',
  [`GET ${CORE}/spaces/{spaceId}/prompts/{promptId}`]: 'prompt.read',
  [`PATCH ${CORE}/spaces/{spaceId}/prompts/{promptId}`]: 'prompt.change',
  [`DELETE ${CORE}/spaces/{spaceId}/prompts/{promptId}`]: 'prompt.change',
  [`GET ${CORE}/spaces/{spaceId}/prompts/{promptId}/versions/{version}`]: 'prompt.read',
  [`GET ${CORE}/models`]: 'instance.settings.manage',
  [`POST ${CORE}/projections/{name}/rebuild`]: 'instance.settings.manage',
  [`GET ${CORE}/settings/space-creation`]: 'instance.settings.manage',
  [`PUT ${CORE}/settings/space-creation`]: 'instance.settings.manage',
  [`GET ${CORE}/settings/people-directory`]: 'instance.settings.manage',
  [`PUT ${CORE}/settings/people-directory`]: 'instance.settings.manage',

  // Agents.
  [`GET ${CORE}/agents`]: { each: 'agent.use' },
  [`POST ${CORE}/agents`]: 'agent.create',
  [`GET ${CORE}/agents/{agentId}`]: 'agent.use',
  [`PUT ${CORE}/agents/{agentId}`]: 'agent.manage',
  [`PUT ${CORE}/agents/{agentId}/prompt`]: 'agent.manage',
  [`DELETE ${CORE}/agents/{agentId}`]: 'agent.manage',

  // API keys and users.
  [`GET ${CORE}/api-keys`]: 'apiKey.manage',
  [`POST ${CORE}/api-keys`]: 'apiKey.manage',
  [`GET ${CORE}/api-keys/{apiKeyId}`]: 'apiKey.manage',
  [`PATCH ${CORE}/api-keys/{apiKeyId}`]: 'apiKey.manage',
  [`DELETE ${CORE}/api-keys/{apiKeyId}`]: 'apiKey.manage',
  [`POST ${CORE}/api-keys/{apiKeyId}/rotate`]: 'apiKey.manage',
  [`GET ${CORE}/users`]: 'user.list',
  [`GET ${CORE}/users/me`]: 'user.self',
  [`PATCH ${CORE}/users/me`]: 'user.self',
  [`POST ${CORE}/users/me/password`]: 'user.self',
  [`PATCH ${CORE}/users/{userId}`]: 'user.manage',
  [`POST ${CORE}/users/{userId}/deactivate`]: 'user.manage',
  [`POST ${CORE}/users/{userId}/reactivate`]: 'user.manage',
  [`GET ${CORE}/invitations`]: 'user.manage',
  [`POST ${CORE}/invitations`]: 'user.manage',
  [`DELETE ${CORE}/invitations/{invitationId}`]: 'user.manage',
  [`POST ${CORE}/invitations/accept`]: 'public',
  [`GET ${CORE}/mail-outbox`]: 'user.manage',
  [`POST ${CORE}/auth/sign-in`]: 'public',
  [`POST ${CORE}/auth/password-reset`]: 'public',
  [`POST ${CORE}/users/{userId}/password-reset`]: 'user.manage',
  [`POST ${CORE}/auth/sign-out`]: 'user.self',
  [`POST ${CORE}/auth/sign-out-everywhere`]: 'user.self',
  [`GET ${CORE}/me/sessions`]: 'user.self',
  [`DELETE ${CORE}/me/sessions/{sessionId}`]: 'user.self',
  [`GET ${CORE}/auth/providers`]: 'public',
  [`GET ${CORE}/auth/oidc/{providerId}/start`]: 'public',
  [`GET ${CORE}/auth/oidc/{providerId}/callback`]: 'public',
  [`POST ${CORE}/auth/oidc/{providerId}/link`]: 'identity.link',
  [`GET ${CORE}/me/identities`]: 'user.self',
  [`DELETE ${CORE}/me/identities/{providerId}`]: 'identity.link',
  [`GET ${CORE}/me/api-keys`]: 'apiKey.own',
  [`POST ${CORE}/me/api-keys`]: 'apiKey.own',
  [`DELETE ${CORE}/me/api-keys/{apiKeyId}`]: 'apiKey.own',
  [`POST ${CORE}/me/api-keys/{apiKeyId}/rotate`]: 'apiKey.own',

  // Knowledge: reading through an Agent one uses; the fixture's documents are its Space's (writing needs its manager).
  [`GET ${K}/documents`]: 'knowledge.read',
  [`POST ${K}/documents`]: 'knowledge.write',
  [`POST ${K}/documents/bulk`]: { each: 'knowledge.write' },
  [`POST ${K}/documents/download`]: 'knowledge.read',
  [`GET ${K}/documents/{documentId}`]: 'knowledge.read',
  [`PUT ${K}/documents/{documentId}`]: 'knowledge.write',
  [`DELETE ${K}/documents/{documentId}`]: 'knowledge.write',
  [`GET ${K}/documents/{documentId}/log`]: 'knowledge.read',
  [`GET ${K}/documents/{documentId}/content`]: 'knowledge.read',
  [`GET ${K}/documents/{documentId}/chunks`]: 'knowledge.read',
  [`GET ${K}/documents/{documentId}/download`]: 'knowledge.read',
  [`POST ${K}/documents/{documentId}/tags/{tagId}`]: 'knowledge.write',
  [`DELETE ${K}/documents/{documentId}/tags/{tagId}`]: 'knowledge.write',
  [`POST ${K}/search`]: 'knowledge.read',
  [`GET ${K}/tags`]: 'knowledge.read',
  [`POST ${K}/tags`]: 'knowledge.tag',
  [`PUT ${K}/tags/{tagId}`]: 'knowledge.tag',
  [`DELETE ${K}/tags/{tagId}`]: 'knowledge.tag',
  [`GET ${K}/summary-index`]: 'knowledge.read',
  [`GET ${K}/summary-index/tree`]: 'knowledge.read',
  [`POST ${K}/summary-index/build`]: 'knowledge.index',
  [`POST ${K}/summary-index/rebuild`]: 'knowledge.index',
  [`POST ${K}/summary-index/cancel`]: 'knowledge.index',
  [`GET ${CORE}/knowledge-index`]: 'knowledgeIndex.manage',
  [`POST ${CORE}/knowledge-index/reindex`]: 'knowledgeIndex.manage',

  // Talking to an Agent: one's own conversations (another user's are 404 to whoever uses the Agent).
  [`POST ${LLM}/generateText`]: 'agent.use',
  [`POST ${LLM}/generateObject`]: 'agent.use',
  [`POST ${LLM}/generateImage`]: 'agent.use',
  [`POST ${LLM}/speech`]: 'agent.use',
  [`POST ${LLM}/transcribe`]: 'agent.use',
  [`GET ${LLM}/models`]: 'agent.use',
  [`GET ${LLM}/usage`]: 'agent.use',
  [`GET ${LLM}/conversation`]: 'agent.use',
  [`POST ${LLM}/conversation`]: 'agent.use',
  [`PATCH ${CONVERSATION}`]: 'agent.use',
  [`DELETE ${CONVERSATION}`]: 'agent.use',
  [`GET ${CONVERSATION}/messages`]: 'agent.use',
  [`DELETE ${CONVERSATION}/messages/{messageId}`]: 'agent.use',
  [`PUT ${CONVERSATION}/head`]: 'agent.use',
  [`POST ${CONVERSATION}/stop`]: 'agent.use',
  [`GET ${CONVERSATION}/tool-calls`]: 'agent.use',
  [`POST ${CONVERSATION}/tool-calls/{callId}`]: 'agent.use',
  [`POST ${CONVERSATION}/app-tools/{name}`]: 'agent.use',
  [`GET ${CORE}/mcp-views/{agentId}/{appId}`]: 'agent.use',
  [`POST ${CONVERSATION}/elicitations/{elicitationId}`]: 'agent.use',
  [`GET ${CONVERSATION}/messages/{messageId}/provenance`]: 'agent.use',
  [`GET ${CONVERSATION}/sandbox`]: 'agent.use',
  [`GET ${CONVERSATION}/sandbox/files`]: 'agent.use',

  // Memory: one's own of an Agent one uses (the shared bucket needs `memory.shared.write`, checked per request).
  [`GET ${MEMORY}/memories`]: 'memory.read',
  [`POST ${MEMORY}/memories`]: 'memory.personal.write',
  [`DELETE ${MEMORY}/memories`]: 'memory.personal.write',
  [`PATCH ${MEMORY}/memories/{memoryId}`]: 'memory.personal.write',
  [`DELETE ${MEMORY}/memories/{memoryId}`]: 'memory.personal.write',
  [`POST ${MEMORY}/memories/{memoryId}/rollback`]: 'memory.personal.write',
  [`GET ${MEMORY}/memories/{memoryId}/versions`]: 'memory.read',
  [`GET ${MEMORY}/memories/{memoryId}/answers`]: 'memory.read',
  [`GET ${MEMORY}/proposals`]: 'memory.read',
  [`POST ${MEMORY}/proposals/{proposalId}`]: 'memory.personal.write',
  [`DELETE ${CORE}/memory`]: 'memory.own.erase',

  // Skills (the fixture's is its Agent's: seen by the Agent's users, changed by its managers).
  [`GET ${CORE}/skills`]: { each: 'skill.read' },
  [`POST ${CORE}/skills`]: 'skill.change',
  [`POST ${CORE}/skills/upload`]: 'skill.change',
  [`GET ${CORE}/skills/{skillId}`]: 'skill.read',
  [`PUT ${CORE}/skills/{skillId}`]: 'skill.change',
  [`DELETE ${CORE}/skills/{skillId}`]: 'skill.change',
  [`PUT ${CORE}/skills/{skillId}/upload`]: 'skill.change',
  [`POST ${CORE}/skills/{skillId}/publish`]: 'skill.change',
  [`PUT ${CORE}/skills/{skillId}/active-version`]: 'skill.change',
  [`GET ${CORE}/skills/{skillId}/versions/{versionId}`]: 'skill.read',
  [`POST ${CORE}/skills/{skillId}/marketplace`]: 'skill.marketplace.curate',
  [`GET ${CORE}/marketplace/skills`]: { each: 'skill.read' },
  [`POST ${CORE}/marketplace/skills/{skillId}/install`]: 'skill.change',
  [`DELETE ${CORE}/marketplace/skills/{skillId}`]: 'skill.marketplace.curate',
  [`POST ${CORE}/marketplace/skills/{skillId}/restore`]: 'skill.marketplace.curate',

  // Usage and cost control: one's own; every key's for admins.
  [`GET ${CORE}/usage`]: 'usage.read.own',
  [`GET ${CORE}/cost-control`]: 'usage.read.own',
  [`POST ${CORE}/cost-control/{apiKeyId}`]: 'usage.read.all',
  [`PUT ${CORE}/cost-control/{apiKeyId}`]: 'usage.read.all',
  [`DELETE ${CORE}/cost-control/{apiKeyId}`]: 'usage.read.all',
  // Users' weekly spend limits: one's own (`me`); everyone's and setting them for admins.
  [`GET ${CORE}/cost-control/users`]: 'usage.read.all',
  [`GET ${CORE}/cost-control/users/me`]: 'usage.read.own',
  [`GET ${CORE}/cost-control/users/{userId}`]: 'usage.read.all',
  // A Space's weekly spend limit: read by whoever sees the Space, set by its owners and admins.
  [`GET ${CORE}/cost-control/spaces/{spaceId}`]: 'space.read',
  [`PUT ${CORE}/cost-control/spaces/{spaceId}`]: 'space.change',
  [`DELETE ${CORE}/cost-control/spaces/{spaceId}`]: 'space.change',
  [`PUT ${CORE}/cost-control/users/{userId}`]: 'usage.read.all',
  [`DELETE ${CORE}/cost-control/users/{userId}`]: 'usage.read.all',

  // Apps (admins register, change, refresh, rotate the token of and delete them).
  [`GET ${CORE}/apps`]: 'app.manage',
  [`POST ${CORE}/apps`]: 'app.manage',
  [`GET ${CORE}/apps/{appId}`]: 'app.manage',
  [`PATCH ${CORE}/apps/{appId}`]: 'app.manage',
  [`DELETE ${CORE}/apps/{appId}`]: 'app.manage',
  [`POST ${CORE}/apps/{appId}/token`]: 'app.manage',
  [`POST ${CORE}/apps/{appId}/refresh`]: 'app.manage',
  [`POST ${CORE}/apps/{appId}/resources/import`]: 'app.manage',
  [`POST ${CORE}/apps/{appId}/sync`]: 'app.manage',
  // A person's own account at an MCP App that signs in each person (OAuth): any person, for themselves alone.
  [`POST ${CORE}/apps/{appId}/oauth/connect`]: 'user.self',
  [`GET ${CORE}/apps/oauth/callback`]: 'user.self',
  [`GET ${CORE}/apps/{appId}/oauth/connection`]: 'user.self',
  [`DELETE ${CORE}/apps/{appId}/oauth/connection`]: 'user.self',
  // The Apps of an Agent whose views its chat shows: whoever uses the Agent as a person.
  [`GET ${CORE}/agents/{agentId}/apps`]: 'app.view',
  [`GET ${CORE}/agents/{agentId}/tools`]: 'agent.use',
  [`PATCH ${CORE}/agents/{agentId}/tools/{name}`]: 'agent.manage',

  // The bridge (an App token or a svc_session_token): the Agents of the App's allowlist.
  [`GET ${BRIDGE}`]: 'agent.use',
  [`POST ${BRIDGE}/conversations/find`]: 'agent.use',
  [`POST ${BRIDGE}/llm/generateText`]: 'agent.use',
  [`POST ${BRIDGE}/llm/generateObject`]: 'agent.use',
  [`POST ${BRIDGE}/llm/generateImage`]: 'agent.use',
  [`POST ${BRIDGE}/llm/speech`]: 'agent.use',
  [`POST ${BRIDGE}/llm/transcribe`]: 'agent.use',
  [`GET ${BRIDGE}/llm/models`]: 'agent.use',
  // The standalone bridge (no Agent): Apps only, the instance-wide default models.
  'POST /api/v1/bridge/llm/generateText': 'app.standalone',
  'POST /api/v1/bridge/llm/generateObject': 'app.standalone',
  'POST /api/v1/bridge/llm/generateImage': 'app.standalone',
  'POST /api/v1/bridge/llm/speech': 'app.standalone',
  'POST /api/v1/bridge/llm/transcribe': 'app.standalone',
  [`GET ${BRIDGE}/knowledge/tags`]: 'knowledge.read',
  [`POST ${BRIDGE}/knowledge/tags`]: 'knowledge.tag',
  [`PUT ${BRIDGE}/knowledge/tags/{tagId}`]: 'knowledge.tag',
  [`DELETE ${BRIDGE}/knowledge/tags/{tagId}`]: 'knowledge.tag',
  [`POST ${BRIDGE}/knowledge/documents/{documentId}/tags/{tagId}`]: 'knowledge.write',
  [`DELETE ${BRIDGE}/knowledge/documents/{documentId}/tags/{tagId}`]: 'knowledge.write',

  // The App proxy: session-only sub-paths for a signed-in person, the rest the App's own (see APP_PROXY_ROUTE).
  [APP_PROXY_ROUTE]: APP_PROXY_RULE,

  // The OpenAI-compatible gateway: models called directly, no Agent.
  'GET /api/compat/v1/models': 'model.call',
  'GET /api/compat/v1/models/{model}': 'model.call',
  'POST /api/compat/v1/chat/completions': 'model.call',
  'POST /api/compat/v1/embeddings': 'model.call',
  'POST /api/compat/v1/rerank': 'model.call',
  'POST /api/compat/v1/responses': 'model.call',
  'GET /api/compat/v1/responses/{responseId}': 'model.call',
  'DELETE /api/compat/v1/responses/{responseId}': 'model.call',
  'GET /api/compat/v1/responses/{responseId}/input_items': 'model.call',
  'POST /api/compat/v1/messages': 'model.call',
  'POST /api/compat/v1/messages/count_tokens': 'model.call',

  // The platform as an MCP server: a user's key; each tool and resource asks the policy for its Agent (agent.use).
  'POST /mcp': 'mcp.connect',
  'GET /mcp': 'mcp.connect',
  'DELETE /mcp': 'mcp.connect',
};

/**
 * Whether a path below an App needs a signed-in person: its first segment is a session-only one, compared without
 * case and compatibility forms (`/ADMIN`, fullwidth letters). The path must already be normalised (dot segments
 * resolved, slashes merged, `;params` stripped, each segment encoded once: the proxy's normaliseAppPath), and be
 * exactly what the App gets.
 */
export const appPathNeedsSession = (path: string): boolean => {
  const encoded = path.split('/')[1] ?? '';
  let first = encoded;
  try {
    first = decodeURIComponent(encoded);
  } catch {
    // Not the proxy's own encoding: compared as it is.
  }
  const folded = first.normalize('NFKC').toLowerCase();
  return APP_PROXY_RULE.appProxy.sessionOnly.some((segment) => segment === folded);
};

/** The row of a route (`GET /api/v1/core/agents/{agentId}`), if it has one. */
const rowOf = (route: string): RouteRule | undefined =>
  Object.hasOwn(ROUTE_AUTHORIZATION, route) ? ROUTE_AUTHORIZATION[route] : undefined;

/** A route as the table names it (`GET /api/v1/core/agents/{agentId}`), from the router's; HEAD is its GET route. */
const routeKeyOf = (method: string, registeredUrl: string): string =>
  `${method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase()} ${registeredUrl.replace(/:(\w+)/g, '{$1}')}`;

/** The rows found so far by registered route: every request asks, the table is a few hundred rows. */
const rowsOfRegistered = new Map<string, RouteRule>();

/**
 * The row of a request's route as the router registered it (`/api/v1/core/agents/:agentId`); a HEAD request is its
 * GET route's (the router answers HEAD for every GET route). Only rows found are remembered (a path without a route
 * is any string a client sends).
 */
export const routeRuleOf = (method: string, registeredUrl: string): RouteRule | undefined => {
  const registered = `${method} ${registeredUrl}`;
  const known = rowsOfRegistered.get(registered);
  if (known !== undefined) return known;
  const rule = rowOf(routeKeyOf(method, registeredUrl));
  if (rule !== undefined) rowsOfRegistered.set(registered, rule);
  return rule;
};

/**
 * The routes an embed visitor (a signed visitor session in `x-embed-session`) may call: exactly the embed's chat of
 * the Agent its session is bound to: a turn, and the messages of its own conversation (to resume after a reload).
 * Anywhere else the session is refused (403 `embed_route_denied`); the policy then answers for the Agent
 * (`agent.use` of an embed visitor: public, not personal, its own Agent).
 */
export const EMBED_VISITOR_ROUTES: ReadonlySet<string> = new Set([
  `POST ${LLM}/conversation`,
  `GET ${CONVERSATION}/messages`,
]);

/** Whether an embed visitor may call this route (as the router registered it). */
export const isEmbedVisitorRoute = (method: string, registeredUrl: string): boolean =>
  EMBED_VISITOR_ROUTES.has(routeKeyOf(method, registeredUrl));
