// The one place that reads process.env: validated once at start-up into a typed, frozen configuration.
// Over 300 lines on purpose: the schema of every variable with its description is the one source the
// configuration page is generated from.
import { availableParallelism, hostname } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';

const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** Megabytes of memory the embedded search index may hold for one purpose (default 256). */
const searchMemoryMb = z.coerce.number().int().min(0).max(1_048_576).default(256);

/** host:port, the host a name, an IPv4 address or a bracketed IPv6 address. */
const BROKER = /^(?:\[[0-9a-fA-F:.]+\]|[^\s:[\]/]+):(\d{1,5})$/;

const brokerList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((broker) => broker.trim())
      .filter(Boolean),
  )
  .superRefine((brokers, ctx) => {
    if (brokers.length === 0)
      ctx.addIssue({ code: 'custom', message: 'lists no broker (host:port,host:port)' });
    for (const broker of brokers) {
      const port = Number(BROKER.exec(broker)?.[1] ?? 0);
      if (port < 1 || port > 65535)
        ctx.addIssue({
          code: 'custom',
          message: `"${broker}" is not host:port (a comma-separated list is expected)`,
        });
    }
  });

/** Every environment variable the platform reads, with its default and what it means (docs/configuration.md). */
export const ConfigVariables = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe('The port the api listens on'),
  HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe('The address the api listens on (`0.0.0.0` in containers)'),
  WORKER_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(3001)
    .describe("The worker's `/health` and `/metrics` listener"),
  DATA_DIR: z
    .string()
    .min(1)
    .default('./data')
    .describe('Embedded stores: `events.db` (the log) and `read.db` (read models), SQLite in WAL mode'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino level; logs are JSON and never contain keys or tokens'),
  ADMIN_API_KEY: z
    .string()
    .min(16, 'ADMIN_API_KEY must be at least 16 characters')
    .optional()
    .describe('At least 16 characters; bootstraps an admin key (rotating it revokes the previous one)'),
  ADMIN_EMAIL: z.string().email().default('admin@localhost').describe('The admin user that owns that key'),
  EVENT_STORE: z
    .enum(['sqlite', 'kurrentdb'])
    .optional()
    .describe('Event store adapter. Unset: `sqlite` (`kurrentdb` when `KURRENTDB_URL` is set)'),
  KURRENTDB_URL: z.string().url().optional().describe('e.g. `kurrentdb://localhost:2113?tls=false`'),
  READ_STORE: z
    .enum(['sqlite', 'mongodb'])
    .optional()
    .describe('Read store adapter. Unset: `sqlite` (`mongodb` when `MONGODB_URI` is set)'),
  MONGODB_URI: z.string().min(1).optional().describe('e.g. `mongodb://localhost:27017/agent_platform`'),
  SEARCH_INDEX: z
    .enum(['sqlite', 'elasticsearch'])
    .optional()
    .describe(
      'Knowledge search index adapter. Unset: `sqlite` (`elasticsearch` when `ELASTICSEARCH_URL` is set)',
    ),
  ELASTICSEARCH_URL: z.string().url().optional().describe('e.g. `http://localhost:9200`'),
  SEARCH_VECTOR_CACHE_MB: searchMemoryMb.describe(
    'Embedded index: decoded embeddings and their int8 codes kept in memory (≈1.9 KB a chunk: 256 MB ≈ 139,000 chunks); past that the codes stay (≈0.4 KB a chunk) and the floats a search scores are read back',
  ),
  SEARCH_BM25_MEMORY_MB: searchMemoryMb.describe(
    'Embedded index: BM25 postings of large Knowledge (4,000 chunks and more) kept in memory (≈0.22 KB a chunk: 256 MB ≈ 1.1 million chunks)',
  ),
  MESSAGE_BUS: z
    .enum(['in-process', 'kafka'])
    .optional()
    .describe(
      'Message bus adapter (integration events, work shared between processes). Unset: `in-process` (`kafka` when `KAFKA_BROKERS` is set)',
    ),
  KAFKA_BROKERS: brokerList.optional().describe('Comma-separated `host:port` list, e.g. `localhost:9092`'),
  KAFKA_CLIENT_ID: z
    .string()
    .min(1)
    .default('agent-platform')
    .describe('The client id this process gives Kafka'),
  KAFKA_SESSION_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(300_000)
    .default(30_000)
    .describe('How long a consumer group waits for a silent member before handing its partitions on'),
  RUN_PROJECTIONS: flag
    .default(true)
    .describe('The api runs projectors itself; set `false` when `apps/worker` runs them'),
  READ_YOUR_WRITES_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60000)
    .default(5000)
    .describe('Longest a write waits for its read models'),
  COMMAND_RETRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(20)
    .default(5)
    .describe('Decisions retried on a concurrent write to the same stream'),
  WORKER_ID: z.string().optional().describe('Names this process in projection leases. Unset: host name'),
  DEFAULT_CHAT_MODEL: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Overrides the instance default chat model (new Agents that name none). Unset: the models file's default (`offline-chat`)",
    ),
  MODELS_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('YAML list of allowed models and upstreams; see `config/models.example.yaml`'),
  HOSTING_REGION: z
    .string()
    .min(1)
    .default('local')
    .describe("This instance's region: models there are `secure` (a models file may set `hostingRegion`)"),
  UPSTREAM_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(60_000)
    .describe('Default timeout of an upstream model call (per provider or model in the file)'),
  ROUTER_RETRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(10)
    .default(2)
    .describe(
      'Tries beyond the first of a call to a model with deployments or fallbacks (each of its deployments and fallbacks is tried at least once)',
    ),
  ROUTER_BACKOFF_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(250)
    .describe(
      'First wait before a deployment is tried again (doubling, jittered, capped by ROUTER_MAX_BACKOFF_MS)',
    ),
  ROUTER_MAX_BACKOFF_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(5_000)
    .describe("Longest wait before a deployment is tried again, an upstream's Retry-After included"),
  ROUTER_FAILURES_TO_COOLDOWN: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(3)
    .describe('Failures in a row after which a deployment cools down (tried only after the healthy ones)'),
  ROUTER_COOLDOWN_SECONDS: z.coerce
    .number()
    .min(0)
    .max(3_600)
    .default(30)
    .describe('How long a deployment that keeps failing cools down'),
  PARSE_MEMORY_MB: z.coerce
    .number()
    .int()
    .min(128)
    .max(16_384)
    .default(768)
    .describe(
      'Memory of one document-parsing child process (JS heap and all else); over it the document fails `too_large`',
    ),
  PARSE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(600_000)
    .default(30_000)
    .describe("Wall time of one document's parse; over it the document fails `timeout`"),
  REQUEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(600_000)
    .default(30_000)
    .describe(
      'Longest a client may take to send its request (headers and body): 408 after (answers may take longer)',
    ),
  IDEMPOTENCY_IN_FLIGHT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(60_000)
    .describe(
      'How long a request with an `Idempotency-Key` counts as running (a turn renews it): a retry meanwhile is 409',
    ),
  STREAM_STALL_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(30_000)
    .describe(
      'A streaming client that reads nothing for this long is disconnected (its upstream call aborted)',
    ),
  KEY_STORE_MASTER_KEY: z
    .string()
    .regex(/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, 'must be 32 bytes as 64 hex digits or base64')
    .optional()
    .describe(
      "Wraps erasable content's data keys (32 bytes, hex/base64); unset: raw in `DATA_DIR/keys.db`, for dev only",
    ),
  CONVERSATION_MAX_TOOL_STEPS: z.coerce
    .number()
    .int()
    .min(1)
    .max(20)
    .default(5)
    .describe('Model calls one conversation turn may make (the answer and its `search_knowledge` steps)'),
  CONVERSATION_TOKEN_BUDGET: z.coerce
    .number()
    .int()
    .min(256)
    .max(2_000_000)
    .default(32_000)
    .describe(
      "Tokens of prompt a turn may send (capped at 75% of the model's window); past it the history is compacted",
    ),
  INCOGNITO_IDLE_MINUTES: z.coerce
    .number()
    .min(0.01)
    .max(1_440)
    .default(30)
    .describe(
      "An incognito conversation without a turn this long is forgotten (it lives only in the api's memory)",
    ),
  INCOGNITO_MAX_BYTES_PER_USER: z.coerce
    .number()
    .int()
    .min(65_536)
    .max(2 ** 40)
    .default(20 * 1024 * 1024)
    .describe(
      "Bytes (default 20 MiB) of text one user's incognito conversations may hold; past it a turn is 429 `incognito_limit_exceeded`",
    ),
  INCOGNITO_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(65_536)
    .max(2 ** 40)
    .default(200 * 1024 * 1024)
    .describe(
      'Bytes (default 200 MiB) all incognito conversations may hold; past it the least recently used idle ones of other users go',
    ),
  MEMORY_PERSONAL_CAP: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(100)
    .describe(
      "Live memories of one user's personal bucket of an Agent; a new one retires the least recently used",
    ),
  MEMORY_SHARED_CAP: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(200)
    .describe("Live memories of an Agent's shared bucket; a write retires only its own contributor's"),
  MEMORY_SHARED_PER_USER_CAP: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(20)
    .describe("Live memories one user's confirmed proposals hold in a shared bucket (their share)"),
  MEMORY_PROPOSALS_PER_HOUR: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(20)
    .describe('Shared-memory proposals a user gets, and confirms, per Agent per hour'),
  MEMORY_SCREEN_MODEL: z
    .string()
    .min(1)
    .optional()
    .describe('A chat model that classifies memory candidates after the screening rules (fails closed)'),
  SANDBOX_CPU_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3_600)
    .default(10)
    .describe('CPU time of one `run_code` call'),
  SANDBOX_MEMORY_MB: z.coerce
    .number()
    .int()
    .min(64)
    .max(16_384)
    .default(512)
    .describe(
      "Memory of a sandbox run as a whole (its cgroup, `/tmp` and `/dev/shm` included); also each process's address space",
    ),
  SANDBOX_DISK_MB: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(200)
    .describe("A sandbox's `/work` tmpfs (and its `/tmp` and `/dev/shm`)"),
  SANDBOX_MAX_PROCESSES: z.coerce
    .number()
    .int()
    .min(4)
    .max(4_096)
    .default(64)
    .describe("Processes a sandbox may run at once (its cgroup's `pids.max`)"),
  SANDBOX_RUN_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3_600)
    .default(30)
    .describe('Wall time of one call (then its process group is killed)'),
  SANDBOX_IDLE_MINUTES: z.coerce
    .number()
    .min(0.05)
    .max(10_080)
    .default(30)
    .describe('A sandbox unused this long is destroyed'),
  SANDBOX_HARD_MINUTES: z.coerce
    .number()
    .min(0.1)
    .max(43_200)
    .default(240)
    .describe('A sandbox older than this is destroyed'),
  SANDBOX_MAX_INODES: z.coerce
    .number()
    .int()
    .min(100)
    .max(10_000_000)
    .default(10_000)
    .describe("Files, directories and links a sandbox's `/work` may hold"),
  SANDBOX_MAX_CONCURRENT_RUNS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_024)
    .optional()
    .describe('`run_code` runs at once in a process; the others wait (FIFO). Unset: the number of CPUs'),
  SANDBOX_MAX_RUNS_PER_USER: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_024)
    .default(2)
    .describe('`run_code` runs at once of one user'),
  SANDBOX_MAX_QUEUED_RUNS: z.coerce
    .number()
    .int()
    .min(0)
    .max(100_000)
    .default(64)
    .describe('Runs that may wait for a slot; past it a run is refused at once (a "busy" tool result)'),
  SANDBOX_MAX_FILES_PER_RUN: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(20)
    .describe('Files a run produced that are kept (copied to the blob store)'),
  SANDBOX_MAX_FILES_PER_CONVERSATION: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(200)
    .describe('Files kept per conversation in all'),
  SANDBOX_MAX_KEPT_MB_PER_CONVERSATION: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(100)
    .describe('Bytes of kept files per conversation'),
  SANDBOX: z
    .enum(['bubblewrap', 'docker'])
    .optional()
    .describe(
      'The code sandbox adapter: bubblewrap embedded, or a container per sandbox. Unset: `bubblewrap` (`docker` when `DOCKER_HOST` is set)',
    ),
  DOCKER_HOST: z
    .string()
    .min(1)
    .optional()
    .describe('The Docker Engine API (`unix:///var/run/docker.sock`, `tcp://host:2375`)'),
  SANDBOX_IMAGE: z
    .string()
    .min(1)
    .default('python:3.12-slim')
    .describe('The image of the container sandboxes (python3, sh, coreutils)'),
  INVITATION_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(24 * 7)
    .describe('How long an invitation link may be accepted (default 7 days)'),
  PUBLIC_URL: z
    .url()
    .optional()
    .describe(
      'Where people reach the instance: the base of links sent by mail (invitations). Unset: `http://HOST:PORT`',
    ),
  MCP_ALLOWED_HOSTS: z
    .string()
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((host) => host.trim())
        .filter(Boolean),
    )
    .describe(
      "Host headers the MCP endpoint (/mcp) answers besides PUBLIC_URL's host and, on a loopback HOST, localhost, " +
        '127.0.0.1 and [::1] at PORT (comma-separated host:port): its DNS-rebinding protection refuses any other',
    ),
  APP_PROXY_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3_600)
    .default(60)
    .describe("How long the App proxy waits for an App's response headers, and between its body chunks"),
  MCP_CONNECT_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(300)
    .default(10)
    .describe(
      'How long connecting to an MCP server and each of its lists (tools, resources, prompts) may take',
    ),
  MCP_CALL_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3_600)
    .default(60)
    .describe("How long one MCP tool call may take; a server's progress notifications do not extend it"),
  MCP_RESULT_MAX_KB: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_240)
    .default(64)
    .describe('Kilobytes (UTF-8) of one MCP tool result a model reads; the rest is cut with a note'),
  RESPONSES_RETENTION_DAYS: z.coerce
    .number()
    .min(0.00001)
    .max(3650)
    .default(30)
    .describe(
      'Days a stored Responses answer (`store: true`, the default) is kept for `previous_response_id`, item references and GET; then it is erased',
    ),
  MCP_VIEW_MAX_KB: z.coerce
    .number()
    .int()
    .min(16)
    .max(1_024)
    .default(1_024)
    .describe(
      "Kilobytes of an MCP App view's HTML (a `ui://` resource) the chat frames; a larger one is refused",
    ),
  TOOL_APPROVAL_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(86_400)
    .default(300)
    .describe(
      'How long a tool call set to `ask` waits for the approval of the person whose turn it is (then it is denied), and ' +
        "a tool server's question for them (then it is cancelled)",
    ),
  MCP_ALLOW_LINK_LOCAL: flag
    .default(false)
    .describe(
      'Allow MCP servers on link-local or cloud-metadata addresses (169.254.0.0/16, fe80::/10, metadata host names)',
    ),
  MCP_RESOURCE_SUBSCRIPTIONS: flag
    .default(true)
    .describe(
      'Watch MCP Apps with synced documents: one connection per App subscribed to their resources, an update it ' +
        'announces syncing the App (servers without OAuth)',
    ),
  MCP_SAMPLING: z
    .enum(['on', 'off'])
    .default('on')
    .describe(
      "Whether an MCP server's sampling requests during a tool call are served with the Agent's model (usage the " +
        "person's, operation `mcp_sampling`); `off`: each is refused with an MCP error",
    ),
  MCP_SAMPLING_MAX_TOKENS: z.coerce
    .number()
    .int()
    .min(1)
    .max(32_000)
    .default(1024)
    .describe(
      "Most output tokens one MCP sampling request is served (a server's larger maxTokens is lowered to it)",
    ),
  MCP_SAMPLING_MAX_REQUESTS: z.coerce
    .number()
    .int()
    .min(0)
    .max(100)
    .default(5)
    .describe('Sampling requests one MCP tool call may make; past it they are refused with an MCP error'),
  APP_ORIGIN: z
    .url()
    .optional()
    .describe(
      'A separate origin (a host pointing at this server) where App views are served unsandboxed, as their own origin',
    ),
  EMBED_SESSION_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .describe(
      'Signs embed visitor sessions (32+ characters); set it when several api processes serve embeds. Unset: random per process',
    ),
  EMBED_SESSION_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_440)
    .default(60)
    .describe("How long a visitor session lives at least (an Agent's longer Embed session minutes win)"),
  EMBED_VISITOR_MESSAGES_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(10)
    .describe(
      "Default of an Agent's `embedLimits.visitorMessagesPerMinute`; then 429 `visitor_rate_limited`",
    ),
  EMBED_AGENT_MESSAGES_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(120)
    .describe("Default of an Agent's `embedLimits.agentMessagesPerMinute`; then 429 `agent_rate_limited`"),
  EMBED_DAILY_COST_USD: z.coerce
    .number()
    .positive()
    .max(1_000_000)
    .default(5)
    .describe("Default of an Agent's `embedLimits.dailyCostUsd`; then 429 `usage_limit_exceeded`"),
  PASSWORD_RESET_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(24)
    .describe('How long an admin-issued password reset link may be used'),
  SESSION_IDLE_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(60 * 24 * 30)
    .default(120)
    .describe('A session unused this long is over'),
  SESSION_ABSOLUTE_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(24 * 7)
    .describe('A session is over this long after sign-in, used or not (default 7 days)'),
  SIGN_IN_MAX_FAILURES_PER_ACCOUNT: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(5)
    .describe(
      'Failed sign-ins of one email from one address per window; past them each failure doubles the wait (429)',
    ),
  SIGN_IN_MAX_FAILURES_PER_ADDRESS: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(50)
    .describe('Distinct accounts failed from one source address per window; then 429 for that address'),
  SIGN_IN_FAILURE_WINDOW_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(15)
    .describe('The window of those counts'),
  AUTH_PROVIDERS_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('The OpenID Connect providers (YAML, see Single sign-on); none when unset'),
  AUTH_PASSWORD_SIGN_IN: flag.default(true).describe('`false`: single sign-on replaces the password fields'),
  MAIL_URL: z
    .url()
    .refine((url) => /^smtps?:\/\//.test(url), 'MAIL_URL must be smtp://… or smtps://…')
    .optional()
    .describe(
      '`smtp://user:pass@host:port` or `smtps://…`: mail leaves by SMTP. Unset: — (the embedded outbox)',
    ),
  MAIL_FROM: z
    .string()
    .min(3)
    .max(254)
    .default('Agent Platform <no-reply@localhost>')
    .describe('The sender of mail sent by SMTP'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url()
    .optional()
    .describe(
      'Traces are exported by OTLP/HTTP (JSON) to this base URL (`/v1/traces` appended), e.g. `http://localhost:4318`. Unset (and no traces endpoint): no tracing, the SDK not even loaded',
    ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .url()
    .optional()
    .describe(
      'The full URL traces are posted to, e.g. `http://localhost:4318/v1/traces` (wins over the base URL)',
    ),
  OTEL_EXPORTER_OTLP_HEADERS: z
    .string()
    .optional()
    .describe(
      'Headers of every export, `key1=value1,key2=value2` (URL-encoded values), e.g. an API key of the tracing backend. Never logged',
    ),
  OTEL_SERVICE_NAME: z
    .string()
    .min(1)
    .default('agent-platform')
    .describe("The traces' `service.name` (the api's and the worker's)"),
  OTEL_CAPTURE_CONTENT: flag
    .default(false)
    .describe(
      '`true`: spans carry prompts, completions, tool arguments and results (`gen_ai.input.messages`, …). Off by default: trace backends cannot erase what a person deletes',
    ),
});

// Over 100 lines on purpose: the mapping of every variable into the typed configuration, one field per line.
const ConfigSchema = ConfigVariables.transform((env) => ({
  port: env.PORT,
  host: env.HOST,
  /** Host headers /mcp answers besides the public URL's host and the loopback ones (DNS-rebinding protection). */
  mcpAllowedHosts: env.MCP_ALLOWED_HOSTS,
  /** The worker's operator listener (GET /health, GET /metrics), on HOST. */
  workerPort: env.WORKER_PORT,
  dataDir: resolve(env.DATA_DIR),
  logLevel: env.LOG_LEVEL,
  adminApiKey: env.ADMIN_API_KEY,
  adminEmail: env.ADMIN_EMAIL,
  eventStore: env.EVENT_STORE ?? (env.KURRENTDB_URL ? 'kurrentdb' : 'sqlite'),
  kurrentDbUrl: env.KURRENTDB_URL,
  readStore: env.READ_STORE ?? (env.MONGODB_URI ? 'mongodb' : 'sqlite'),
  mongodbUri: env.MONGODB_URI,
  /** Where Knowledge chunks are indexed: SQLite beside the stores, or Elasticsearch. */
  searchIndex: env.SEARCH_INDEX ?? (env.ELASTICSEARCH_URL ? 'elasticsearch' : 'sqlite'),
  elasticsearchUrl: env.ELASTICSEARCH_URL,
  /**
   * Memory of the embedded search index: decoded embeddings with their int8 codes (about 1.9 KB per chunk of 384
   * dimensions), and the in-memory BM25 postings of large indexes (about 0.55 KB per chunk of the bench's text).
   * An Agent whose chunks do not fit is searched from the file (slower), not refused.
   */
  searchMemory: {
    vectorCacheBytes: env.SEARCH_VECTOR_CACHE_MB * 1024 * 1024,
    bm25Bytes: env.SEARCH_BM25_MEMORY_MB * 1024 * 1024,
  },
  /** Integration events and work distribution: in-process (one process), or Kafka when brokers are given. */
  messageBus: env.MESSAGE_BUS ?? (env.KAFKA_BROKERS?.length ? 'kafka' : 'in-process'),
  kafkaBrokers: Object.freeze(env.KAFKA_BROKERS ?? []) as readonly string[],
  kafkaClientId: env.KAFKA_CLIENT_ID,
  /** How long a Kafka consumer group waits for a silent member before handing its partitions on. */
  kafkaSessionTimeoutMs: env.KAFKA_SESSION_TIMEOUT_MS,
  runProjections: env.RUN_PROJECTIONS,
  readYourWritesTimeoutMs: env.READ_YOUR_WRITES_TIMEOUT_MS,
  commandRetries: env.COMMAND_RETRIES,
  workerId: env.WORKER_ID ?? hostname(),
  /** Overrides the models file's default chat model. */
  defaultChatModelOverride: env.DEFAULT_CHAT_MODEL,
  modelsFile: env.MODELS_FILE ? resolve(env.MODELS_FILE) : undefined,
  hostingRegion: env.HOSTING_REGION,
  upstreamTimeoutMs: env.UPSTREAM_TIMEOUT_MS,
  /** How calls of a model with deployments or fallbacks are retried and moved (the gateway's router). */
  router: {
    retries: env.ROUTER_RETRIES,
    backoffMs: env.ROUTER_BACKOFF_MS,
    maxBackoffMs: env.ROUTER_MAX_BACKOFF_MS,
    failuresToCooldown: env.ROUTER_FAILURES_TO_COOLDOWN,
    cooldownMs: Math.round(env.ROUTER_COOLDOWN_SECONDS * 1000),
  },
  /** Memory (the whole process) and wall time one document's parse may take; over either it fails. */
  parseMemoryMb: env.PARSE_MEMORY_MB,
  parseTimeoutMs: env.PARSE_TIMEOUT_MS,
  /** Longest a client may take to send a request's headers and body (a slow sender gets 408). */
  requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
  /** How long a request with an Idempotency-Key counts as still running (a retry meanwhile is 409). */
  idempotencyInFlightMs: env.IDEMPOTENCY_IN_FLIGHT_MS,
  /** A streaming client that reads nothing for this long is disconnected (its upstream call aborted). */
  streamStallTimeoutMs: env.STREAM_STALL_TIMEOUT_MS,
  /** Wraps the data keys of erasable content (conversations); without it they are stored unwrapped. Never logged. */
  keyStoreMasterKey: env.KEY_STORE_MASTER_KEY
    ? Buffer.from(env.KEY_STORE_MASTER_KEY, env.KEY_STORE_MASTER_KEY.length === 64 ? 'hex' : 'base64')
    : undefined,
  /** Model calls one conversation turn may make (the answer plus its tool steps). */
  conversationMaxToolSteps: env.CONVERSATION_MAX_TOOL_STEPS,
  /** How long a stored Responses answer is kept before it is erased. */
  responsesRetentionMs: Math.round(env.RESPONSES_RETENTION_DAYS * 86_400_000),
  /** How long a tool call waiting for its approval waits before it is denied as expired. */
  toolApprovalTimeoutMs: env.TOOL_APPROVAL_TIMEOUT_SECONDS * 1000,
  /** An MCP server's sampling requests during a tool call: served or refused, and their bounds. */
  mcpSampling: {
    enabled: env.MCP_SAMPLING === 'on',
    maxTokens: env.MCP_SAMPLING_MAX_TOKENS,
    maxRequestsPerCall: env.MCP_SAMPLING_MAX_REQUESTS,
  },
  /** Tokens of history a conversation sends before its oldest part is compacted (capped by the model's window). */
  conversationTokenBudget: env.CONVERSATION_TOKEN_BUDGET,
  /** An incognito conversation left idle this long is forgotten (it lives only in the serving process's memory). */
  incognitoIdleMs: Math.round(env.INCOGNITO_IDLE_MINUTES * 60_000),
  /**
   * Bytes (UTF-8) of text one user's incognito conversations may hold in this process: messages, attachments'
   * extracted text, answers, summaries. A turn that would pass it is refused (429 incognito_limit_exceeded).
   */
  incognitoMaxBytesPerUser: env.INCOGNITO_MAX_BYTES_PER_USER,
  /** Bytes all incognito conversations may hold in this process; past it the least recently used idle ones go. */
  incognitoMaxBytes: env.INCOGNITO_MAX_BYTES,
  /** Live memories a user's personal bucket of one Agent holds; a new one retires the least recently used. */
  memoryPersonalCap: env.MEMORY_PERSONAL_CAP,
  /** Live memories an Agent's shared bucket holds (same rule). */
  memorySharedCap: env.MEMORY_SHARED_CAP,
  /** Live memories one user's confirmed proposals may hold in an Agent's shared bucket (their share of it). */
  memorySharedPerUserCap: env.MEMORY_SHARED_PER_USER_CAP,
  /** Shared-memory proposals one user may get, and confirm, per Agent per hour (beyond: none made; 429). */
  memoryProposalsPerHour: env.MEMORY_PROPOSALS_PER_HOUR,
  /** A chat model that classifies memory candidates as injections, after the rules (optional). */
  memoryScreenModel: env.MEMORY_SCREEN_MODEL,
  /** The code sandbox of a conversation (bubblewrap embedded): limits of one run, and when a sandbox is destroyed. */
  sandbox: {
    cpuSeconds: env.SANDBOX_CPU_SECONDS,
    memoryMb: env.SANDBOX_MEMORY_MB,
    diskMb: env.SANDBOX_DISK_MB,
    /** Inodes (files, directories, links) a sandbox's /work may hold. */
    workInodes: env.SANDBOX_MAX_INODES,
    maxProcesses: env.SANDBOX_MAX_PROCESSES,
    maxFileMb: Math.min(env.SANDBOX_DISK_MB, 100),
    outputBytes: 64 * 1024,
    wallTimeoutMs: env.SANDBOX_RUN_TIMEOUT_SECONDS * 1_000,
    idleTimeoutMs: Math.round(env.SANDBOX_IDLE_MINUTES * 60_000),
    hardTimeoutMs: Math.round(env.SANDBOX_HARD_MINUTES * 60_000),
    /** Runs at once in this process, in all and per user; past either a run waits (FIFO), up to a queue's length. */
    maxConcurrentRuns: env.SANDBOX_MAX_CONCURRENT_RUNS ?? availableParallelism(),
    maxRunsPerUser: env.SANDBOX_MAX_RUNS_PER_USER,
    maxQueuedRuns: env.SANDBOX_MAX_QUEUED_RUNS,
    /** Files a run's code produced that are kept (copied to the blob store), per run and per conversation. */
    maxFilesPerRun: env.SANDBOX_MAX_FILES_PER_RUN,
    maxFilesPerConversation: env.SANDBOX_MAX_FILES_PER_CONVERSATION,
    maxKeptBytesPerConversation: env.SANDBOX_MAX_KEPT_MB_PER_CONVERSATION * 1024 * 1024,
    /** bubblewrap embedded; docker (a container per sandbox) when DOCKER_HOST is set or SANDBOX=docker. */
    adapter: env.SANDBOX ?? (env.DOCKER_HOST ? 'docker' : 'bubblewrap'),
    dockerEndpoint: env.DOCKER_HOST ?? 'unix:///var/run/docker.sock',
    image: env.SANDBOX_IMAGE,
  },
  apps: {
    /** How long the App proxy waits for an App's response headers, and between its body chunks. */
    proxyTimeoutMs: env.APP_PROXY_TIMEOUT_SECONDS * 1000,
    /**
     * The separate origin Apps are served on inside a chat (APP_ORIGIN, e.g. https://apps.example.com pointing at
     * this server). App documents served on any other origin (the platform's) run sandboxed: an opaque origin
     * without the platform's cookies or storage.
     */
    appOrigin: env.APP_ORIGIN ? new URL(env.APP_ORIGIN).origin : null,
    /** MCP servers as Apps: the client's bounds, and whether link-local and metadata addresses may be reached. */
    mcp: {
      connectTimeoutMs: env.MCP_CONNECT_TIMEOUT_SECONDS * 1000,
      callTimeoutMs: env.MCP_CALL_TIMEOUT_SECONDS * 1000,
      resultMaxBytes: env.MCP_RESULT_MAX_KB * 1024,
      allowLinkLocal: env.MCP_ALLOW_LINK_LOCAL,
    },
    /** Bytes of an MCP App view's HTML the chat frames (the MCP client reads at most 1 MiB of an answer). */
    mcpViewMaxBytes: env.MCP_VIEW_MAX_KB * 1024,
    /** Whether MCP Apps with synced documents are subscribed to, their updates syncing them. */
    mcpResourceSubscriptions: env.MCP_RESOURCE_SUBSCRIPTIONS,
  },
  people: {
    /** How long an invitation link may be accepted. */
    invitationTtlMs: env.INVITATION_TTL_HOURS * 3_600_000,
    /** Where people reach the instance (links in mail); http://HOST:PORT when unset. */
    /** How long a password reset link may be used. */
    passwordResetTtlMs: env.PASSWORD_RESET_TTL_HOURS * 3_600_000,
    sessionIdleMs: env.SESSION_IDLE_MINUTES * 60_000,
    sessionAbsoluteMs: env.SESSION_ABSOLUTE_HOURS * 3_600_000,
    /** Failed sign-ins an account, and a source address, may have per window before 429. */
    signInMaxFailuresPerAccount: env.SIGN_IN_MAX_FAILURES_PER_ACCOUNT,
    signInMaxFailuresPerAddress: env.SIGN_IN_MAX_FAILURES_PER_ADDRESS,
    signInFailureWindowMs: env.SIGN_IN_FAILURE_WINDOW_MINUTES * 60_000,
    publicUrl: (env.PUBLIC_URL ?? `http://${env.HOST}:${env.PORT}`).replace(/\/+$/, ''),
    /** PUBLIC_URL as given: the base of single sign-on's redirect URI (unset: the request's own origin). */
    publicUrlSet: env.PUBLIC_URL !== undefined,
    /** The OpenID providers file (YAML: sso and social providers); none when unset. */
    providersFile: env.AUTH_PROVIDERS_FILE ? resolve(env.AUTH_PROVIDERS_FILE) : undefined,
    /** false: single sign-on replaces the password fields (sign-in, invitation acceptance, resets). */
    passwordSignIn: env.AUTH_PASSWORD_SIGN_IN,
  },
  mail: {
    /** smtp://user:pass@host:port (smtps:// for TLS): mail leaves by SMTP; unset: the embedded outbox. */
    url: env.MAIL_URL,
    from: env.MAIL_FROM,
  },
  /**
   * OpenTelemetry traces: exported by OTLP/HTTP when an endpoint is set (the SDK is loaded only then); prompts and
   * completions are in spans only when `captureContent`. The exporter's other variables (timeouts, compression,
   * certificates) are read by the exporter itself.
   */
  tracing: {
    endpoint:
      env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
      (env.OTEL_EXPORTER_OTLP_ENDPOINT
        ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`
        : undefined),
    headers: env.OTEL_EXPORTER_OTLP_HEADERS,
    serviceName: env.OTEL_SERVICE_NAME,
    captureContent: env.OTEL_CAPTURE_CONTENT,
  },
  /**
   * Embedded chats of public Agents. Visitor sessions are signed with `sessionSecret` (one random per process when
   * unset: set it when several api processes serve embeds); a session lives `sessionMs` (at least an Agent's Embed
   * session minutes). Abuse limits: messages per visitor and per Agent per minute (in each api process), and the
   * cost all visitors of one Agent may spend per UTC day.
   */
  embed: {
    sessionSecret: env.EMBED_SESSION_SECRET,
    sessionMs: env.EMBED_SESSION_MINUTES * 60_000,
    visitorMessagesPerMinute: env.EMBED_VISITOR_MESSAGES_PER_MINUTE,
    agentMessagesPerMinute: env.EMBED_AGENT_MESSAGES_PER_MINUTE,
    dailyCostUsd: env.EMBED_DAILY_COST_USD,
  },
})).superRefine((config, ctx) => {
  if (config.eventStore === 'kurrentdb' && !config.kurrentDbUrl)
    ctx.addIssue({ code: 'custom', message: 'EVENT_STORE=kurrentdb needs KURRENTDB_URL' });
  if (config.readStore === 'mongodb' && !config.mongodbUri)
    ctx.addIssue({ code: 'custom', message: 'READ_STORE=mongodb needs MONGODB_URI' });
  if (config.searchIndex === 'elasticsearch' && !config.elasticsearchUrl)
    ctx.addIssue({ code: 'custom', message: 'SEARCH_INDEX=elasticsearch needs ELASTICSEARCH_URL' });
  if (config.messageBus === 'kafka' && config.kafkaBrokers.length === 0)
    ctx.addIssue({
      code: 'custom',
      message: 'MESSAGE_BUS=kafka needs KAFKA_BROKERS (host:port,host:port)',
    });
});

export type PlatformConfig = Readonly<z.output<typeof ConfigSchema>> & {
  /** The value of an environment variable holding a secret (an upstream API key). */
  readonly secret: (name: string) => string | undefined;
};

export class ConfigError extends Error {}

/** Parses an environment (process.env by default); throws a ConfigError that names every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): PlatformConfig {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = ConfigSchema.safeParse(cleaned);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || 'config'}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  // Upstream model keys are named in the models file by variable; they are looked up here, once, and never logged.
  const secrets = Object.freeze({ ...cleaned });
  return Object.freeze({ ...parsed.data, secret: (name: string): string | undefined => secrets[name] });
}

export const PLATFORM_CONFIG = Symbol('PLATFORM_CONFIG');

/** For entry points: the configuration, or the problems on stderr and exit code 2 (a usage error, not a crash). */
export function loadConfigOrExit(): PlatformConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
}
