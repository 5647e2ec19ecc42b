// `npm run bench`: runs every benchmark once on this machine, each against a baseline measured in the same run, and
// prints a table (value, baseline, ratio, goal, PASS/MISS) plus dist/bench-results.json. Performance is measured
// here, never asserted in tests.
//   BENCH_ONLY=command,projection,api,gateway,providers,knowledge,conversations,eventloop,web   run a subset
//   BENCH_QUICK=1                                         shorter runs and a smaller log (smoke test of the harness only)
//   BENCH_CONVERSATIONS_LARGER=1000000                    the conversations bench's turn also at these Knowledge sizes, last
//                                                         (the api's search memory raised to hold them; 1,000,000: ~30 min)
//   BENCH_GROWTH_CHUNKS=1000,10000,100000,1000000          the growth part's Knowledge sizes (default up to 100000; quick: 1000,10000;
//                                                         1,000,000 on request: its fill takes over an hour on 2 cores)
//   BENCH_GROWTH_VECTOR_CACHE_MB=431                      the api's vector cache there (default: the largest size's floats fit)
//   BENCH_ANN=1                                           also build and measure an HNSW graph over the knowledge bench's one-owner
//                                                         index (recall@10, build time, memory; 4–18 minutes on 2 cores)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, release, totalmem, type as osType } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchCommandPath } from './command-path.js';
import { benchProjectionRebuild } from './projection-rebuild.js';
import { benchApiStartup } from './api-startup.js';
import { benchNpmStart } from './npm-start.js';
import { benchGateway } from './gateway.js';
import { benchGatewayStreams } from './gateway-streams.js';
import { benchProviders } from './providers.js';
import { benchKnowledge } from './knowledge.js';
import { benchSniffLinearity } from './sniff-linearity.js';
import { benchConversations } from './conversations.js';
import { benchEventLoop } from './event-loop.js';
import { benchWeb } from './web.js';
import { benchGrowth } from './growth.js';
import { fmtRate, log, passes, type MetricRow } from './util.js';

const quick = process.env.BENCH_QUICK === '1';
const PARTS = [
  'command',
  'projection',
  'api',
  'gateway',
  'providers',
  'knowledge',
  'conversations',
  'eventloop',
  'web',
  'growth',
];
const only = new Set(
  (process.env.BENCH_ONLY ?? PARTS.join(','))
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean),
);
const mainPath = fileURLToPath(new URL('../apps/api/src/main.js', import.meta.url));
const upstreamPath = fileURLToPath(new URL('./fake-upstream-server.js', import.meta.url));
const bareProxyPath = fileURLToPath(new URL('./bare-proxy-server.js', import.meta.url));
const vendorPath = fileURLToPath(new URL('./fake-vendor-server.js', import.meta.url));
const resultsPath = fileURLToPath(new URL('../bench-results.json', import.meta.url));
/** The latest figures, kept in git: written by a full run only (a subset or a quick run would replace them with less). */
const resultsDocPath = fileURLToPath(new URL('../../bench/RESULTS.md', import.meta.url));
const fullRun = !quick && PARTS.every((part) => only.has(part));

function machine() {
  const list = cpus();
  let commit: string | null;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    commit = null;
  }
  return {
    cpus: list.length,
    cpuModel: list[0]?.model ?? 'unknown',
    memoryGb: Number((totalmem() / 1024 ** 3).toFixed(1)),
    freeMemoryGb: Number((freemem() / 1024 ** 3).toFixed(1)),
    os: `${osType()} ${release()}`,
    node: process.version,
    nodePath: process.execPath,
    sqlite: process.versions.sqlite ?? 'unknown',
    commit,
    /** 1/5/15-minute load average when the bench started: other work on the machine skews every number. */
    loadAverage: loadavg().map((value) => Number(value.toFixed(2))),
  };
}

function formatValue(value: number, unit: string): string {
  if (unit.endsWith('/s')) return `${fmtRate(value)} ${unit}`;
  if (unit === 's') return `${value.toFixed(3)} s`;
  if (unit === 'ms') return `${value.toFixed(3)} ms`;
  if (unit === 'chunks') return `${value.toFixed(0)} ${unit}`;
  if (unit === 'recall@10') return value.toFixed(3);
  return `${value.toFixed(1)} ${unit}`;
}

/** Rates as whole numbers; small baselines (milliseconds) with the digits that matter. */
const formatBaseline = (value: number): string => (value >= 100 ? fmtRate(value) : value.toFixed(3));

function formatGoal(row: MetricRow): string {
  if (!row.goal) return '-';
  const op = row.goal.op === '>=' ? '≥' : '≤';
  return row.goal.on === 'ratio'
    ? `ratio ${op} ${row.goal.target}`
    : `${op} ${formatValue(row.goal.target, row.unit)}`;
}

function table(rows: readonly MetricRow[]): string {
  const header = ['metric', 'value', 'baseline', 'ratio', 'goal', 'result'];
  const cells = rows.map((row) => {
    const pass = passes(row);
    return [
      row.metric,
      formatValue(row.value, row.unit),
      row.baseline === null ? '-' : `${formatBaseline(row.baseline)} ${row.baselineLabel ?? ''}`.trim(),
      row.ratio === null ? '-' : row.ratio.toFixed(2),
      formatGoal(row),
      pass === null ? 'info' : pass ? 'PASS' : 'MISS',
    ];
  });
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((line) => line[i]!.length)));
  const line = (values: readonly string[]) =>
    values.map((value, i) => (i === 0 ? value.padEnd(widths[i]!) : value.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

const machineLines = (info: ReturnType<typeof machine>, node: string): string[] => [
  `machine: ${info.cpus} CPU × ${info.cpuModel}; ${info.memoryGb} GB RAM; ${info.os}`,
  `node ${node}; SQLite ${info.sqlite}; commit ${info.commit ?? 'unknown'}`,
  `load average at start: ${info.loadAverage.join(' / ')} (1/5/15 min)`,
];

/** bench/RESULTS.md: the machine, the goals met and the table the run printed. */
function resultsDoc(info: ReturnType<typeof machine>, rows: readonly MetricRow[], goalsLine: string): string {
  return [
    '# Benchmark results',
    '',
    'Written by `npm run bench` at the end of its last full run (a `BENCH_ONLY` or `BENCH_QUICK` run leaves this page',
    'alone); how to run it and what each figure measures: [Operations](../docs/operations.md#benchmarks).',
    '',
    ...[...machineLines(info, info.node), goalsLine].map((line) => `- ${line}`),
    '',
    '```text',
    table(rows),
    '```',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const info = machine();
  const majorNode = Number(process.versions.node.split('.')[0]);
  if (majorNode < 24) log(`warning: running on Node ${process.version}; the platform targets Node 24`);
  log(`machine: ${info.cpus} × ${info.cpuModel}, ${info.memoryGb} GB, ${info.os}, node ${info.node}`);

  const started = performance.now();
  const rows: MetricRow[] = [];
  const details: Record<string, unknown> = {};

  if (only.has('command')) {
    log('1/6 command path …');
    const result = await benchCommandPath({
      seconds: quick ? 0.5 : 3,
      runs: 3,
      warmupSeconds: quick ? 0.2 : 0.5,
      agents: 2000,
      history: 10,
    });
    rows.push(...result.rows);
    details.commandPath = result.details;
  }

  if (only.has('projection')) {
    log('2/6 projection rebuild …');
    const result = await benchProjectionRebuild({
      plan: quick
        ? { spaces: 500, eventsPerSpace: 4, agents: 1000, eventsPerAgent: 8 }
        : { spaces: 4000, eventsPerSpace: 5, agents: 8000, eventsPerAgent: 10 },
      churn: quick
        ? { spaces: 200, eventsPerSpace: 2, agents: 400, eventsPerAgent: 24, rounds: 24 }
        : { spaces: 1000, eventsPerSpace: 2, agents: 2000, eventsPerAgent: 48, rounds: 48 },
      churnRuns: 3,
      runs: quick ? 3 : 7,
      batchSize: 500,
      timeoutMs: 120_000,
    });
    rows.push(...result.rows);
    details.projectionRebuild = result.details;
  }

  if (only.has('api')) {
    log('3/6 api start-up and idle memory …');
    if (!existsSync(mainPath)) throw new Error(`${mainPath} is missing: run npm run build first`);
    const result = await benchApiStartup({
      mainPath,
      coldStarts: 3,
      idleMs: 2000,
      readyTimeoutMs: 60_000,
      warmPlan: { spaces: 500, eventsPerSpace: 4, agents: 1000, eventsPerAgent: 8 },
    });
    rows.push(...result.rows);
    details.apiStartup = result.details;
    const cold = result.rows.find((row) => row.metric.startsWith('API cold start'));
    const npmStart = await benchNpmStart({
      starts: 3,
      timeoutMs: 60_000,
      apiColdStartS: cold?.value ?? null,
    });
    rows.push(...npmStart.rows);
    details.npmStart = npmStart.details;
  }

  if (only.has('gateway')) {
    log('4/6 gateway overhead …');
    const result = await benchGateway({
      mainPath,
      upstreamPath,
      bareProxyPath,
      readyTimeoutMs: 60_000,
      latencyRequests: quick ? 300 : 3000,
      latencyBlock: quick ? 50 : 250,
      throughputSeconds: quick ? 1 : 5,
      throughputBlocks: quick ? 2 : 5,
      concurrency: 32,
      streams: quick ? 30 : 200,
      streamBlock: quick ? 10 : 25,
      streamChunks: 20,
      chunkDelayMs: 2,
      upstreamLatencyMs: 10,
      warmup: quick
        ? { requests: 200, seconds: 0.5, streams: 10 }
        : // Saturated seconds per path: the api's CPU per request kept falling over its first ~10 s of saturated
          // load (a probe on the bench machine, 1.5 s blocks: 994, 383, 364, 439, 280, 238 µs; the bare proxy's
          // blocks between them 340, 238, 217); with 2 s, the rows measured the tail of that warm-up.
          { requests: 1000, seconds: 8, streams: 20 },
    });
    rows.push(...result.rows);
    details.gateway = result.details;
    log('4a/6 gateway, many streams at once …');
    const streams = await benchGatewayStreams({
      mainPath,
      upstreamPath,
      readyTimeoutMs: 60_000,
      streams: quick ? 200 : 1000,
      tokens: quick ? 60 : 300,
      tokenDelayMs: 50,
      rampMs: 1000,
    });
    rows.push(...streams.rows);
    details.gatewayStreams = streams.details;
  }

  if (only.has('providers')) {
    log('4b/6 gateway per provider type, and with the primary deployment down …');
    const result = await benchProviders({
      mainPath,
      upstreamPath,
      vendorPath,
      bareProxyPath,
      readyTimeoutMs: 60_000,
      seconds: quick ? 1 : 4,
      concurrency: 16,
      requests: quick ? 100 : 600,
      block: quick ? 25 : 100,
    });
    rows.push(...result.rows);
  }

  if (only.has('knowledge')) {
    log('5/6 knowledge ingestion and search …');
    const result = await benchKnowledge({
      ingestion: quick
        ? { documents: 20, sectionsPerDocument: 20, warmupDocuments: 2 }
        : { documents: 200, sectionsPerDocument: 20, warmupDocuments: 5 },
      search: {
        plan: quick
          ? {
              globalChunks: 1_000,
              spaces: 5,
              chunksPerSpace: 500,
              agents: 43,
              chunksPerAgent: 150,
              chunksPerDocument: 50,
            }
          : {
              globalChunks: 5_000,
              spaces: 24,
              chunksPerSpace: 1_000,
              agents: 475,
              chunksPerAgent: 150,
              chunksPerDocument: 50,
            },
        queries: quick ? 50 : 300,
        adminQueries: quick ? 10 : 50,
        warmupQueries: quick ? 5 : 20,
      },
    });
    rows.push(...result.rows, ...(await benchSniffLinearity()));
    details.knowledge = result.details;
  }

  if (only.has('conversations')) {
    log('6/6 conversations: turn overhead, streaming, listing …');
    const result = await benchConversations({
      mainPath,
      upstreamPath,
      readyTimeoutMs: 60_000,
      documents: quick ? 100 : 1_000,
      chunksPerDocument: 100,
      smallerChunkCounts: quick ? [1_000] : [1_000, 10_000],
      smallerTurns: quick ? 40 : 100,
      largerChunkCounts: (process.env.BENCH_CONVERSATIONS_LARGER ?? '')
        .split(',')
        .map(Number)
        .filter((chunks) => Number.isInteger(chunks) && chunks > 0),
      turns: quick ? 40 : 200,
      block: quick ? 10 : 25,
      warmupTurns: 20,
      streams: quick ? 20 : 100,
      streamBlock: 10,
      warmupStreams: quick ? 5 : 10,
      streamChunks: 20,
      chunkDelayMs: 2,
      upstreamLatencyMs: 10,
      listingMessages: quick ? 400 : 1_000,
      listings: quick ? 10 : 30,
      pageSize: 200,
    });
    rows.push(...result.rows);
    details.conversations = result.details;
  }

  if (only.has('eventloop')) {
    log('7/7 event loop under big turns, incognito memory …');
    const result = await benchEventLoop({
      mainPath,
      readyTimeoutMs: 60_000,
      turns: quick ? 10 : 40,
      messageChars: 88_000,
      incognitoTurns: quick ? 8 : 60,
      attachmentBytes: 4_900_000,
      settleMs: quick ? 2_000 : 15_000,
    });
    rows.push(...result.rows);
  }

  if (only.has('web')) {
    log(
      '8/8 web app: chat page JS size, time to a usable chat page, first render of a long conversation, first delta in Chromium …',
    );
    const result = await benchWeb({
      mainPath,
      upstreamPath,
      webDir: fileURLToPath(new URL('../web', import.meta.url)),
      readyTimeoutMs: 60_000,
      messages: 200,
      loads: quick ? 2 : 5,
      deltas: quick ? 3 : 10,
    });
    rows.push(...result.rows);
    details.web = result.details;
  }

  if (only.has('growth')) {
    log('9/9 growth: a turn and the api at 1k → 1M chunks, in conversations of 10 → 10,000 messages …');
    const sizes = (process.env.BENCH_GROWTH_CHUNKS ?? (quick ? '1000,10000' : '1000,10000,100000'))
      .split(',')
      .map(Number)
      .filter((chunks) => Number.isInteger(chunks) && chunks > 0);
    const result = await benchGrowth({
      mainPath,
      upstreamPath,
      readyTimeoutMs: 120_000,
      documents: quick ? 100 : 1_000,
      chunkCounts: sizes,
      turns: quick ? 20 : 100,
      block: quick ? 10 : 25,
      warmupTurns: 10,
      upstreamLatencyMs: 10,
      conversationMessages: quick ? [10, 100, 400] : [10, 1_000, 10_000],
      conversationTurns: quick ? 10 : 40,
      vectorCacheMb: Number(process.env.BENCH_GROWTH_VECTOR_CACHE_MB ?? 0) || undefined,
    });
    rows.push(...result.rows);
    details.growth = result.details;
  }

  const totalSeconds = (performance.now() - started) / 1000;
  const goals = rows.filter((row) => row.goal !== null);
  const missed = goals.filter((row) => passes(row) === false);

  const goalsLine = `${goals.length - missed.length}/${goals.length} goals met; total bench time ${totalSeconds.toFixed(0)} s`;
  const out = [
    '',
    `Agent Platform benchmark — ${new Date().toISOString()}${quick ? '  (BENCH_QUICK: smoke run, not representative)' : ''}`,
    ...machineLines(info, `${info.node} (${info.nodePath})`),
    '',
    table(rows),
    '',
    'notes:',
    '  command path = AggregateRepository (handleCommand with its state cache: load, fold, decide, append with expected revision) on SqliteEventStore;',
    '    baseline = one autocommitted raw INSERT per event of the same rows, same schema and pragmas',
    '    (WAL, synchronous=FULL); time-boxed runs alternate baseline/command on fresh files; medians of 3.',
    '  rebuild = ProjectionRunner (one subscription per projector) over a fresh SqliteReadStore until every',
    '    live checkpoint reaches the head and its (deferred) indexes exist, log events ÷ seconds; baseline = readAll in batches of 500 incl. JSON parsing.',
    "    Each run pairs one rebuild with one raw read (alternating which goes first); the ratio is the median of the runs' ratios.",
    '    floor = the same read and projectors, their ops applied to documents in memory, then each final document committed',
    '    once through the store and the indexes built: a rebuild that writes each document once, on this thread.',
    '    A second log (info) changes each of 2,000 Agents in 48 rounds spread over it, so each document is changed by',
    '    many batches: 3 rebuilds, each paired with a raw read (a catch-up commits its batches together, up to 1 s apart).',
    '  start-up = spawn of dist/apps/api/src/main.js until GET /health is 200 (10 ms polling); RSS = VmRSS.',
    '  gateway = POST /api/compat/v1/chat/completions (model bench-chat) vs the same body straight to the fake upstream',
    '    (model fake-model); upstream (bench/fake-upstream-server.js), api and load client are three processes on the same',
    '    machine, one keep-alive http.Agent; direct and gateway alternate in blocks after a warm-up of both. The upstream',
    '    answers after 10 ms (a fast model; real ones take 100s of ms), so ratios compare against a realistic floor; the',
    '    added-latency rows are the absolute cost, the instant-upstream row against a second upstream that answers at once',
    '    (back-to-back requests), beside a reference bare proxy (fastify in, undici out, 20 lines) measured the same',
    '    way: the floor of any Node gateway on this machine (its goal is a ratio to that floor). api CPU per request =',
    '    user + system time of the api process (all threads, /proc) during the saturated gateway blocks ÷ requests.',
    '    A second bare proxy stands in front of the 10 ms upstream, in the same rounds: its added p50, saturated',
    '    throughput and CPU per request are the info rows under the goals they are the floor of.',
    '    latency = sequential non-streaming requests (p50/p99, send to last byte); added latency = gateway p50 − direct p50;',
    '    throughput = 32 requests in flight, time-boxed; TTFT = stream: true, upstream sends 20 content chunks 2 ms apart,',
    '    time to the first SSE event with non-empty delta.content (median); chunks lost = content chunks missing from',
    '    gateway streams vs the 20 the upstream sent (checked on the direct path), plus streams without data: [DONE].',
    '    For reference, published gateway overheads (other hardware, not goals): Bifrost +0.44 ms, Portkey +2.37 ms,',
    '    LiteLLM +4.34 ms.',
    '    gateway /responses and /messages = the same request in the Responses and Anthropic Messages formats (translated to',
    '    the same upstream chat completions), measured in the same rounds against the same direct path, with the same',
    '    goals; their streams end at response.completed / message_stop instead of [DONE]. /responses is sent store: false',
    '    (the translation alone; storing a response is a durable write of its own, not measured here).',
    '    gateway /responses stored = the same request with store: true (the default), saturated blocks alternating with',
    '    store: false, each followed by 300 ms so the write made after the answer is counted: api CPU per request,',
    '    against store: false + floor; floor = in the bench process, a fresh data key a response and its input and',
    '    answer sealed (AES-256-GCM) with it, the key and one row of the sealed texts inserted in two SQLite files',
    '    (WAL, FULL), each committed once per 32 responses: CPU per response, median of 3 runs of 2,048.',
    '    Many streams = 1,000 stream: true chat completions (quick 200) started evenly over 1 s against an upstream that',
    '    sends the first token after 50 ms, then 20 a second, 300 tokens (quick 60); one socket per stream at the client.',
    '    first delta = time to the first content chunk at the client; RSS growth = peak VmRSS (100 ms samples) − idle.',
    "  providers = the api's CPU per chat completion (16 in flight, time-boxed, after a warm-up) routed to each provider",
    "    type's fake vendor upstream (libs/core/testing/src/fake-vendors: that vendor's wire format, its own process), against",
    '    the bare proxy in front of the plain fake upstream the same way; primary down = sequential requests, in alternating',
    '    blocks, to a model whose weight-first deployment refuses connections (or answers 503) and a healthy second one,',
    '    against the same upstream alone: added = p99 − that p99; goal: within the first retry backoff (250 ms).',
    '  knowledge = in-process (no HTTP), the real parts. ingestion = generated Markdown documents (~20 sections of',
    '    prose with lists, code, tables), one at a time: sniffType → parseDocument (pooled child processes when run',
    '    from dist) → chunkDocument (≤ 400 tokens) → offlineEmbed in batches of 64 → SqliteSearchIndex.upsertDocument on',
    '    a temp file; chunks ÷ seconds of the whole pass (docs/s, stage shares in details.knowledge.ingestion).',
    '    search = SqliteSearchIndex of 100k chunks (quick: 10k; 384-d offlineEmbed, ~120 words each, documents of 50)',
    "    over 500 owners; a query is an Agent's scope: its own ~150 chunks, its Space's ~1,000, global ~5,000; 2–5",
    '    words of the corpus vocabulary, limit 8, query embedding computed beforehand (timed apart, in details).',
    '    Hybrid, BM25-only (the baseline) and vector-only (details) run interleaved per query, vector cache warm;',
    '    p50 of 300 queries (quick: 50). The all-owners row = 50 queries over every owner (admin-style).',
    '    ANN = the same chunks under one owner in a second index: its HNSW graph built by a worker (s and RSS MB per 100k),',
    "    then the scoped queries' texts through the graph and through the exact scan: recall@10 of the vector top 10.",
    '  conversations = the built api, fake upstream (10 ms, 20 chunks 2 ms apart) and client as three processes. Knowledge:',
    "    1,000 tiny text documents (quick: 100) added through the api until Ready, api stopped, each document's chunks",
    '    replaced in the live index (search.db, SearchIndex.upsertDocument, same version) by 100 generated chunks with',
    '    offlineEmbed vectors, all owned by the bench Agent (100k chunks; quick 10k), api started again. Turn = POST',
    '    …/llm/{agentId}/conversation, a new conversation each, 200 sequential (quick 40) after 20 warm-up; baseline =',
    '    POST /api/compat/v1/chat/completions, same model, the prompt the turn builds (system prompt, the sources of the',
    '    same query, the query: same word count upstream); added = turn p50 − gateway p50; POST …/knowledge/…/search of',
    '    the same query alongside (info). Streaming = first `delta` event vs first content chunk (p50s, 100; quick 20).',
    "    api CPU per turn = the api's /proc utime+stime (every thread) over the turn blocks ÷ turns, beside the same",
    '    for the gateway blocks. Durable commit = single-row commits (WAL, synchronous=FULL, as the event store',
    "    appends) into a file beside the api's, 5 ms apart and back to back: this machine's floor for the answer's append.",
    '    Sizes: the turn part alone runs first with 1k and 10k chunks (1 and 10 per document; quick: 1k), 100 turns',
    '    each (quick 40). When the HNSW graphs are on by default (DEFAULT_ANN_MIN_CHUNKS; off today), the bench builds',
    "    the Agent's graph after the fill (build time, RSS per 100k in details) and saves it beside search.db.",
    "    Recall@10 = after each fill, the vector top 10 of the turns' first 100 questions as the api ranks them (vector",
    '    cache on: the int8 first pass, or the graph) against the plain exact scan (no cache), in the bench process.',
    '    Listing = one conversation of 1,000 messages (quick 400) made by 500 sequential turns through the api against',
    '    an instant upstream, then GET …/messages?limit=200 through every page, 30 times (quick 10): goal on one page.',
    "  growth = the conversations bench's processes and seeding, one Knowledge grown 1k → 10k → 100k → 1M chunks",
    '    (BENCH_GROWTH_CHUNKS; 1,000 documents, api restarted at each size, same search memory throughout): turn added p50',
    '    (100 turns vs gateway calls, blocks of 25) and api RSS at each, beside the step before; floor = one WebAssembly',
    '    SIMD pass over as many bytes as the codes. A conversation grown to 10, 1,000, 10,000 messages at 1k chunks (instant',
    '    upstream): turn p50 of 40 turns at each, goal ≤ 1.5 × the step before (its history is bounded).',
    '',
    goalsLine,
    `results: ${resultsPath}`,
    '',
  ];
  process.stdout.write(out.join('\n'));
  if (fullRun) writeFileSync(resultsDocPath, resultsDoc(info, rows, goalsLine));

  mkdirSync(dirname(resultsPath), { recursive: true });
  writeFileSync(
    resultsPath,
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        quick,
        machine: info,
        totalSeconds,
        rows: rows.map((row) => ({ ...row, pass: passes(row) })),
        details,
      },
      null,
      2,
    )}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
