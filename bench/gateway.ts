// Benchmark 5: what the compatible gateway (POST /api/compat/v1/chat/completions) adds to a model call. Three
// processes: the fake OpenAI-compatible upstream (bench/fake-upstream-server.ts), the built api routing model
// `bench-chat` to it, and this process as the load client. The same client (one keep-alive http.Agent), the same
// request body and the same upstream process serve both paths, "direct" (client → upstream, model `fake-model`) and
// "gateway" (client → api → upstream, model `bench-chat`), in alternating blocks after a warm-up of both, so drift
// (CPU frequency, GC, the usage log growing) falls on both. Measured: sequential latency (p50, p99), saturated
// throughput at a fixed concurrency, streaming time to first content token, and content chunks lost in streams.
// The gateway's two other doors, POST /responses and POST /messages (translated to the same upstream chat
// completions), are measured in the same rounds against the same direct path, with the same goals.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { Agent, request, type ClientRequest, type OutgoingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BENCH_ADMIN_API_KEY, spawnApi, stop } from './api-startup.js';
import { storedResponseFloorUs } from './stored-floor.js';
import { cpuSeconds, log, makeTempDir, median, type MetricRow } from './util.js';

/**
 * The request went out on a kept-alive connection the server closed as it sat idle (the fake upstream and the bare
 * proxy close idle ones after Node's 5 s; it failed a full run once): sent again on a new one, as Node's
 * documentation advises, its time started again.
 */
const metIdleClose = (req: ClientRequest, error: NodeJS.ErrnoException): boolean =>
  req.reusedSocket && error.code === 'ECONNRESET';

export interface GatewayBenchOptions {
  /** dist/apps/api/src/main.js */
  readonly mainPath: string;
  /** dist/bench/fake-upstream-server.js */
  readonly upstreamPath: string;
  /** The reference bare proxy (bench/bare-proxy-server.js). */
  readonly bareProxyPath: string;
  readonly readyTimeoutMs: number;
  /** Sequential non-streaming requests per path, measured… */
  readonly latencyRequests: number;
  /** …in alternating blocks of this many. */
  readonly latencyBlock: number;
  /** Saturated throughput: seconds per path, split into alternating blocks… */
  readonly throughputSeconds: number;
  readonly throughputBlocks: number;
  /** …with this many requests in flight. */
  readonly concurrency: number;
  /** Sequential streams per path, in alternating blocks. */
  readonly streams: number;
  readonly streamBlock: number;
  /** Content chunks the fake upstream splits each streamed reply into, and the pause between chunks. */
  readonly streamChunks: number;
  readonly chunkDelayMs: number;
  /** How long the fake upstream waits before answering (a fast model's time to first byte). */
  readonly upstreamLatencyMs: number;
  readonly warmup: { readonly requests: number; readonly seconds: number; readonly streams: number };
}

type PathName = 'direct' | 'gateway' | 'responses' | 'messages';
/** The gateway's routes besides chat completions, measured like it. */
const OTHER_ROUTES = ['responses', 'messages'] as const;

interface Target {
  readonly name: PathName;
  /** The wire format of the path's answers. */
  readonly kind: 'chat' | 'responses' | 'messages';
  readonly port: number;
  readonly path: string;
  readonly body: Buffer;
  readonly streamBody: Buffer;
  readonly headers: (body: Buffer) => OutgoingHttpHeaders;
}

interface Answer {
  readonly status: number;
  readonly ms: number;
  readonly body: string;
}

interface StreamOutcome {
  readonly status: number;
  /** From sending the request to the first SSE event with non-empty `choices[0].delta.content`; null if none. */
  readonly ttftMs: number | null;
  readonly contentChunks: number;
  readonly text: string;
  readonly done: boolean;
  readonly errorEvent: string | null;
}

export interface PathFigures {
  readonly latency: { p50Ms: number; p90Ms: number; p99Ms: number; meanMs: number; maxMs: number; n: number };
  readonly throughput: { requestsPerSecond: number; requests: number; seconds: number; concurrency: number };
  /** CPU time per request during the throughput blocks (/proc/<pid>/stat utime+stime, all threads). */
  readonly cpuUsPerRequest: { client: number; upstream: number; api: number | null };
  readonly streaming: {
    ttftMedianMs: number;
    ttftP90Ms: number;
    streams: number;
    contentChunksReceived: number;
    contentChunksExpected: number;
    streamsWithoutDone: number;
    streamsWithWrongText: number;
  };
}

export interface GatewayDetails {
  readonly direct: PathFigures;
  readonly gateway: PathFigures;
  /** POST /responses and POST /messages: their figures and added latencies, as for chat completions. */
  readonly routes: Record<
    (typeof OTHER_ROUTES)[number],
    PathFigures & { addedLatencyP50Ms: number; instantAddedLatencyP50Ms: number; chunksLost: number }
  >;
  readonly addedLatencyP50Ms: number;
  /** Back-to-back requests against an upstream that answers at once. */
  readonly instantUpstream: {
    directP50Ms: number;
    gatewayP50Ms: number;
    addedLatencyP50Ms: number;
    /** The reference bare proxy's added latency: the floor of a Node proxy on this machine. */
    bareProxyAddedLatencyP50Ms: number;
  };
  /** The same bare proxy in front of the upstream the goals use: what the rows without it compare against. */
  readonly bareProxy: {
    addedLatencyP50Ms: number;
    requestsPerSecond: number;
    cpuUsPerRequest: number;
  };
  readonly addedLatencyP99Ms: number;
  readonly chunksLost: number;
  readonly upstream: { streamChunks: number; chunkDelayMs: number; latencyMs: number; reply: string };
}

const REPLY =
  'Hello there. This fixed reply is long enough to be split into twenty pieces by the fake upstream model server.';
const MESSAGES = [
  { role: 'system', content: 'You are a terse assistant.' },
  { role: 'user', content: 'Say hello in one sentence.' },
];

const chatBody = (model: string, stream: boolean): Buffer =>
  Buffer.from(JSON.stringify({ model, messages: MESSAGES, max_tokens: 64, ...(stream ? { stream } : {}) }));
/**
 * The same request in the Responses and the Messages format. The Responses one is sent `store: false` (as stateless
 * clients such as Codex CLI send it): these rows measure the translation; a stored response adds a durable write of
 * its own (a data key and an event), which is not the gateway's overhead on a model call.
 */
const responsesBody = (model: string, stream: boolean, store = false): Buffer =>
  Buffer.from(
    JSON.stringify({
      model,
      instructions: MESSAGES[0]!.content,
      input: MESSAGES[1]!.content,
      max_output_tokens: 64,
      store,
      ...(stream ? { stream } : {}),
    }),
  );
const messagesBody = (model: string, stream: boolean): Buffer =>
  Buffer.from(
    JSON.stringify({
      model,
      system: MESSAGES[0]!.content,
      messages: [MESSAGES[1]!],
      max_tokens: 64,
      ...(stream ? { stream } : {}),
    }),
  );

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Spawns the fake upstream process and reads the port it prints; stdin stays open so it exits with this process. */
export async function startUpstream(
  upstreamPath: string,
  options: Record<string, unknown>,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [upstreamPath, JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let line = '';
      const timer = setTimeout(
        () => reject(new Error(`fake upstream did not start in 10 s:\n${output}`)),
        10_000,
      );
      child.stdout!.on('data', (chunk: Buffer) => {
        line += chunk.toString();
        const end = line.indexOf('\n');
        if (end < 0) return;
        clearTimeout(timer);
        resolve((JSON.parse(line.slice(0, end)) as { port: number }).port);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`fake upstream exited (${code ?? signal}) before listening:\n${output}`));
      });
      child.once('error', reject);
    });
    child.stdout!.resume();
    return { child, port };
  } catch (error) {
    await stop(child);
    throw error;
  }
}

export async function benchGateway(
  options: GatewayBenchOptions,
): Promise<{ rows: MetricRow[]; details: GatewayDetails }> {
  for (const path of [options.mainPath, options.upstreamPath, options.bareProxyPath])
    if (!existsSync(path)) throw new Error(`${path} is missing: run npm run build first`);

  const dir = makeTempDir('gateway');
  const children: ChildProcess[] = [];
  // Children are stopped in `finally`; these cover the bench being interrupted or exiting without unwinding.
  const killAll = () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const onSignal = (signal: NodeJS.Signals) => {
    killAll();
    dir.remove();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', killAll);

  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency * 2, scheduling: 'lifo' });
  try {
    const upstream = await startUpstream(options.upstreamPath, {
      reply: REPLY,
      streamChunks: options.streamChunks,
      chunkDelayMs: options.chunkDelayMs,
      latencyMs: options.upstreamLatencyMs,
    });
    children.push(upstream.child);
    // A second upstream that answers at once: the back-to-back overhead, with nothing else to wait for.
    const instantUpstream = await startUpstream(options.upstreamPath, { reply: REPLY });
    children.push(instantUpstream.child);
    const bareProxy = await startUpstream(options.bareProxyPath, { upstreamPort: instantUpstream.port });
    children.push(bareProxy.child);
    // The bare proxy again, in front of the delayed upstream: the floor of the added-latency, throughput and CPU rows.
    const bareProxySlow = await startUpstream(options.bareProxyPath, { upstreamPort: upstream.port });
    children.push(bareProxySlow.child);
    const modelsFile = join(dir.path, 'models.yaml');
    writeFileSync(
      modelsFile,
      [
        'providers:',
        `  fake: { baseUrl: http://127.0.0.1:${upstream.port}/v1 }`,
        `  instant: { baseUrl: http://127.0.0.1:${instantUpstream.port}/v1 }`,
        'models:',
        '  - { key: bench-chat, modelId: fake-model, provider: fake, kind: chat, pricing: { input: 1, output: 2 } }',
        `  - { key: bench-instant, modelId: fake-model, provider: instant, kind: chat, pricing: { input: 1, output: 2 } }`,
        '',
      ].join('\n'),
    );
    const api = await spawnApi(
      options.mainPath,
      join(dir.path, 'data'),
      options.readyTimeoutMs,
      { MODELS_FILE: modelsFile },
      true,
    );
    children.push(api.child);
    log(
      `gateway: fake upstream pid ${upstream.child.pid} on :${upstream.port}, api pid ${api.child.pid} on :${api.port}`,
    );

    // Identical headers on both paths (the upstream ignores the key), so the client does the same work for each.
    const headers = (body: Buffer): OutgoingHttpHeaders => ({
      'content-type': 'application/json',
      'content-length': body.length,
      authorization: `Bearer ${BENCH_ADMIN_API_KEY}`,
    });
    const direct: Target = {
      name: 'direct',
      kind: 'chat',
      port: upstream.port,
      path: '/v1/chat/completions',
      body: chatBody('fake-model', false),
      streamBody: chatBody('fake-model', true),
      headers,
    };
    const gateway: Target = {
      name: 'gateway',
      kind: 'chat',
      port: api.port,
      path: '/api/compat/v1/chat/completions',
      body: chatBody('bench-chat', false),
      streamBody: chatBody('bench-chat', true),
      headers,
    };

    const directInstant: Target = { ...direct, port: instantUpstream.port };
    const bareInstant: Target = { ...direct, port: bareProxy.port };
    const bare: Target = { ...direct, port: bareProxySlow.port };
    const gatewayInstant: Target = {
      ...gateway,
      body: chatBody('bench-instant', false),
      streamBody: chatBody('bench-instant', true),
    };
    const responsesRoute = (model: string): Target => ({
      name: 'responses',
      kind: 'responses',
      port: api.port,
      path: '/api/compat/v1/responses',
      body: responsesBody(model, false),
      streamBody: responsesBody(model, true),
      headers,
    });
    const messagesRoute = (model: string): Target => ({
      name: 'messages',
      kind: 'messages',
      port: api.port,
      path: '/api/compat/v1/messages',
      body: messagesBody(model, false),
      streamBody: messagesBody(model, true),
      headers,
    });
    const others = [responsesRoute('bench-chat'), messagesRoute('bench-chat')];
    // The Responses request stored (the API's default): the same blocks against its `store: false` twin.
    const storedResponses: Target = { ...others[0]!, body: responsesBody('bench-chat', false, true) };
    const othersInstant = [responsesRoute('bench-instant'), messagesRoute('bench-instant')];

    const post = (target: Target): Promise<Answer> =>
      new Promise((resolve, reject) => {
        const started = performance.now();
        const req = request(
          {
            host: '127.0.0.1',
            port: target.port,
            path: target.path,
            method: 'POST',
            agent,
            headers: target.headers(target.body),
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                ms: performance.now() - started,
                body: Buffer.concat(chunks).toString('utf8'),
              }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', (error: NodeJS.ErrnoException) => {
          if (metIdleClose(req, error)) post(target).then(resolve, reject);
          else reject(error);
        });
        req.end(target.body);
      });

    const ok = (target: Target, answer: Answer, check: boolean): void => {
      if (answer.status !== 200)
        throw new Error(
          `${target.name} answered ${answer.status}: ${answer.body.slice(0, 500)}\n${api.output()}`,
        );
      if (!check) return;
      const parsed = JSON.parse(answer.body) as {
        choices?: { message?: { content?: string } }[];
        output_text?: string;
        content?: { text?: string }[];
      };
      const content =
        target.kind === 'chat'
          ? parsed.choices?.[0]?.message?.content
          : target.kind === 'responses'
            ? parsed.output_text
            : parsed.content?.[0]?.text;
      if (content !== REPLY)
        throw new Error(`${target.name} answered unexpected content: ${answer.body.slice(0, 500)}`);
    };

    const streamOnce = (target: Target): Promise<StreamOutcome> =>
      new Promise((resolve, reject) => {
        const started = performance.now();
        const req = request(
          {
            host: '127.0.0.1',
            port: target.port,
            path: target.path,
            method: 'POST',
            agent,
            headers: target.headers(target.streamBody),
          },
          (res) => {
            let ttftMs: number | null = null;
            let contentChunks = 0;
            let text = '';
            let done = false;
            let errorEvent: string | null = null;
            let pending = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              const now = performance.now();
              pending += chunk;
              let end: number;
              while ((end = pending.indexOf('\n')) >= 0) {
                const line = pending.slice(0, end).trimEnd();
                pending = pending.slice(end + 1);
                if (!line.startsWith('data:') || res.statusCode !== 200) continue;
                const payload = line.slice(5).trim();
                if (payload === '[DONE]') {
                  done = true;
                  continue;
                }
                const event = JSON.parse(payload) as {
                  choices?: { delta?: { content?: string | null } }[];
                  error?: unknown;
                  type?: string;
                  delta?: string | { text?: string };
                };
                let content: unknown;
                if (target.kind === 'chat') {
                  if (event.error !== undefined) errorEvent = payload;
                  content = event.choices?.[0]?.delta?.content;
                } else {
                  // Responses and Messages: typed events; their last one stands for [DONE].
                  if (event.type === 'error') errorEvent = payload;
                  if (event.type === 'response.completed' || event.type === 'message_stop') done = true;
                  if (event.type === 'response.output_text.delta') content = event.delta;
                  else if (event.type === 'content_block_delta' && typeof event.delta === 'object')
                    content = event.delta.text;
                }
                if (typeof content === 'string' && content.length > 0) {
                  ttftMs ??= now - started;
                  contentChunks += 1;
                  text += content;
                }
              }
            });
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                ttftMs,
                contentChunks,
                text: res.statusCode === 200 ? text : pending,
                done,
                errorEvent,
              }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', (error: NodeJS.ErrnoException) => {
          if (metIdleClose(req, error)) streamOnce(target).then(resolve, reject);
          else reject(error);
        });
        req.end(target.streamBody);
      });

    const sequential = async (target: Target, count: number, into?: number[]): Promise<void> => {
      for (let i = 0; i < count; i++) {
        const answer = await post(target);
        ok(target, answer, i === 0);
        into?.push(answer.ms);
      }
    };

    /** `concurrency` loops sending back to back until the time is up; returns completed requests and seconds. */
    const saturate = async (target: Target, seconds: number) => {
      const started = performance.now();
      const deadline = started + seconds * 1000;
      let completed = 0;
      await Promise.all(
        Array.from({ length: options.concurrency }, async () => {
          while (performance.now() < deadline) {
            ok(target, await post(target), false);
            completed += 1;
          }
        }),
      );
      return { completed, seconds: (performance.now() - started) / 1000 };
    };

    const streams = async (target: Target, count: number, into?: StreamOutcome[]): Promise<void> => {
      for (let i = 0; i < count; i++) {
        const outcome = await streamOnce(target);
        if (outcome.status !== 200)
          throw new Error(`${target.name} stream answered ${outcome.status}: ${outcome.text.slice(0, 500)}`);
        into?.push(outcome);
      }
    };

    /**
     * Runs `block` for every path `rounds` times: direct and chat completions swapping which goes first every round
     * (ABBA), the other routes after them in turn.
     */
    const alternate = async (rounds: number, block: (target: Target, round: number) => Promise<void>) => {
      for (let round = 0; round < rounds; round++)
        for (const target of [
          ...(round % 2 === 0 ? [direct, gateway] : [gateway, direct]),
          ...(round % 2 === 0 ? others : [...others].reverse()),
        ])
          await block(target, round);
    };

    log(
      `gateway: warm-up (${options.warmup.requests} requests, ${options.warmup.seconds} s saturated, ` +
        `${options.warmup.streams} streams per path) …`,
    );
    for (const target of [direct, gateway, bare, ...others, direct, gateway, bare, ...others]) {
      await sequential(target, Math.ceil(options.warmup.requests / 2));
      await saturate(target, options.warmup.seconds / 2);
      await streams(target, Math.ceil(options.warmup.streams / 2));
    }

    const latencies: Record<PathName, number[]> = { direct: [], gateway: [], responses: [], messages: [] };
    const latencyRounds = Math.ceil(options.latencyRequests / options.latencyBlock);
    log(`gateway: sequential latency, ${latencyRounds} × ${options.latencyBlock} requests per path …`);
    const bareSlowLatencies: number[] = [];
    await alternate(latencyRounds, async (target) => {
      await sequential(target, options.latencyBlock, latencies[target.name]);
      // The bare proxy's block follows the direct one's, in the same rounds.
      if (target === direct) await sequential(bare, options.latencyBlock, bareSlowLatencies);
    });

    const instantLatencies: Record<PathName, number[]> = {
      direct: [],
      gateway: [],
      responses: [],
      messages: [],
    };
    log(
      `gateway: back-to-back latency (instant upstream), ${latencyRounds} × ${options.latencyBlock} per path …`,
    );
    const bareLatencies: number[] = [];
    const into = (target: Target) => (target === bareInstant ? bareLatencies : instantLatencies[target.name]);
    for (const target of [directInstant, gatewayInstant, bareInstant, ...othersInstant])
      await sequential(target, options.latencyBlock);
    for (let round = 0; round < latencyRounds; round++) {
      const order = [directInstant, gatewayInstant, bareInstant, ...othersInstant];
      for (let i = 0; i < round % order.length; i++) order.push(order.shift()!);
      for (const target of order) await sequential(target, options.latencyBlock, into(target));
    }
    const p50Of = (values: readonly number[]) =>
      percentile(
        [...values].sort((a, b) => a - b),
        50,
      );
    const instantP50 = (name: PathName) => p50Of(instantLatencies[name]);
    const instantAdded = instantP50('gateway') - instantP50('direct');
    const bareAdded = p50Of(bareLatencies) - instantP50('direct');

    const load: Record<
      PathName,
      { completed: number; seconds: number; client: number; upstream: number; api: number }
    > = {
      direct: { completed: 0, seconds: 0, client: 0, upstream: 0, api: 0 },
      gateway: { completed: 0, seconds: 0, client: 0, upstream: 0, api: 0 },
      responses: { completed: 0, seconds: 0, client: 0, upstream: 0, api: 0 },
      messages: { completed: 0, seconds: 0, client: 0, upstream: 0, api: 0 },
    };
    const blockSeconds = options.throughputSeconds / options.throughputBlocks;
    log(
      `gateway: saturated throughput, ${options.throughputBlocks} × ${blockSeconds} s per path at concurrency ` +
        `${options.concurrency} …`,
    );
    const bareLoad = { completed: 0, seconds: 0, cpu: 0 };
    await alternate(options.throughputBlocks, async (target) => {
      if (target === direct) {
        const bareCpu = cpuSeconds(bareProxySlow.child.pid!);
        const result = await saturate(bare, blockSeconds);
        bareLoad.completed += result.completed;
        bareLoad.seconds += result.seconds;
        bareLoad.cpu += cpuSeconds(bareProxySlow.child.pid!) - bareCpu;
      }
      const client = process.cpuUsage();
      const upstreamCpu = cpuSeconds(upstream.child.pid!);
      const apiCpu = cpuSeconds(api.child.pid!);
      const result = await saturate(target, blockSeconds);
      const used = process.cpuUsage(client);
      const figures = load[target.name];
      figures.completed += result.completed;
      figures.seconds += result.seconds;
      figures.client += (used.user + used.system) / 1e6;
      figures.upstream += cpuSeconds(upstream.child.pid!) - upstreamCpu;
      figures.api += cpuSeconds(api.child.pid!) - apiCpu;
    });

    log(`gateway: stored responses, ${options.throughputBlocks} × ${blockSeconds} s each way …`);
    const storing = { stored: { cpu: 0, completed: 0 }, unstored: { cpu: 0, completed: 0 } };
    for (let block = 0; block < options.throughputBlocks; block++)
      for (const [way, target] of [
        ['stored', storedResponses],
        ['unstored', others[0]!],
      ] as const) {
        const apiCpu = cpuSeconds(api.child.pid!);
        const result = await saturate(target, blockSeconds);
        // A stored response is written after its answer is sent: its write is counted once it has settled.
        await sleep(300);
        storing[way].cpu += cpuSeconds(api.child.pid!) - apiCpu;
        storing[way].completed += result.completed;
      }
    const storedCpu = (way: keyof typeof storing) =>
      Math.round((storing[way].cpu / storing[way].completed) * 1e6 * 10) / 10;
    // The floor of what storing adds (stored-floor.ts), on this run's own texts: the input as the api files it and
    // the answer's `response` object.
    const sample = await post(storedResponses);
    const storedFloor = storedResponseFloorUs(
      JSON.stringify([{ role: 'user', content: MESSAGES[1]!.content }]),
      sample.body,
    );
    log(
      `gateway: stored /responses api ${storedCpu('stored')} µs, store: false ${storedCpu('unstored')} µs, ` +
        `floor of a sealed durable write ${storedFloor.toFixed(1)} µs per response`,
    );

    const streamed: Record<PathName, StreamOutcome[]> = {
      direct: [],
      gateway: [],
      responses: [],
      messages: [],
    };
    const streamRounds = Math.ceil(options.streams / options.streamBlock);
    log(`gateway: streaming, ${streamRounds} × ${options.streamBlock} streams per path …`);
    await alternate(streamRounds, (target) => streams(target, options.streamBlock, streamed[target.name]));

    // What the upstream sends per stream is checked on the direct path: a harness problem, not a gateway loss.
    const expectedChunks = options.streamChunks;
    const badDirect = streamed.direct.filter(
      (s) => s.contentChunks !== expectedChunks || !s.done || s.text !== REPLY,
    );
    if (badDirect.length > 0)
      throw new Error(
        `the fake upstream sent ${badDirect[0]!.contentChunks} content chunks (done: ${badDirect[0]!.done}), ` +
          `expected ${expectedChunks}: check its streamChunks and reply`,
      );

    const figuresOf = (name: PathName): PathFigures => {
      const sorted = [...latencies[name]].sort((a, b) => a - b);
      const ttfts = streamed[name]
        .map((s) => s.ttftMs)
        .filter((ms): ms is number => ms !== null)
        .sort((a, b) => a - b);
      const { completed, seconds, client, upstream: upstreamCpu, api: apiCpu } = load[name];
      const perRequest = (cpu: number) => Math.round((cpu / completed) * 1e6 * 10) / 10;
      return {
        latency: {
          p50Ms: percentile(sorted, 50),
          p90Ms: percentile(sorted, 90),
          p99Ms: percentile(sorted, 99),
          meanMs: sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length,
          maxMs: sorted[sorted.length - 1]!,
          n: sorted.length,
        },
        throughput: {
          requestsPerSecond: completed / seconds,
          requests: completed,
          seconds,
          concurrency: options.concurrency,
        },
        cpuUsPerRequest: {
          client: perRequest(client),
          upstream: perRequest(upstreamCpu),
          api: name === 'direct' ? null : perRequest(apiCpu),
        },
        streaming: {
          ttftMedianMs: median(ttfts),
          ttftP90Ms: percentile(ttfts, 90),
          streams: streamed[name].length,
          contentChunksReceived: streamed[name].reduce((sum, s) => sum + s.contentChunks, 0),
          contentChunksExpected: streamed[name].length * expectedChunks,
          streamsWithoutDone: streamed[name].filter((s) => !s.done).length,
          streamsWithWrongText: streamed[name].filter((s) => s.text !== REPLY).length,
        },
      };
    };
    const d = figuresOf('direct');
    const bareFigures = {
      addedLatencyP50Ms: p50Of(bareSlowLatencies) - d.latency.p50Ms,
      requestsPerSecond: bareLoad.completed / bareLoad.seconds,
      cpuUsPerRequest: Math.round((bareLoad.cpu / bareLoad.completed) * 1e6 * 10) / 10,
    };
    const info = (
      metric: string,
      value: number,
      unit: string,
      baseline?: number,
      label?: string,
    ): MetricRow => ({
      metric,
      value,
      unit,
      baseline: baseline ?? null,
      baselineLabel: label ?? null,
      ratio: baseline ? value / baseline : null,
      goal: null,
    });
    const g = figuresOf('gateway');
    // A chunk is lost when a gateway stream carries fewer content chunks than the upstream sent; a stream without
    // its `[DONE]` counts as one more (the client cannot tell it finished).
    const lostOn = (name: PathName) =>
      streamed[name].reduce((sum, s) => sum + Math.max(0, expectedChunks - s.contentChunks), 0) +
      streamed[name].filter((s) => !s.done).length;
    const chunksLost = lostOn('gateway');
    const errorEvents = [...streamed.gateway, ...streamed.responses, ...streamed.messages].filter(
      (s) => s.errorEvent !== null,
    );
    if (errorEvents.length > 0)
      log(
        `gateway: ${errorEvents.length} streams carried an error event, e.g. ${errorEvents[0]!.errorEvent}`,
      );

    log(
      `gateway: p50 ${d.latency.p50Ms.toFixed(3)} → ${g.latency.p50Ms.toFixed(3)} ms, p99 ${d.latency.p99Ms.toFixed(3)} → ` +
        `${g.latency.p99Ms.toFixed(3)} ms, ${d.throughput.requestsPerSecond.toFixed(0)} → ` +
        `${g.throughput.requestsPerSecond.toFixed(0)} req/s, TTFT ${d.streaming.ttftMedianMs.toFixed(3)} → ` +
        `${g.streaming.ttftMedianMs.toFixed(3)} ms; CPU µs/request at saturation: client ${d.cpuUsPerRequest.client} / ` +
        `${g.cpuUsPerRequest.client}, upstream ${d.cpuUsPerRequest.upstream} / ${g.cpuUsPerRequest.upstream}, ` +
        `api ${g.cpuUsPerRequest.api}`,
    );

    const ratioRow = (
      metric: string,
      value: number,
      baseline: number,
      unit: string,
      baselineLabel: string,
      op: '<=' | '>=',
      target: number,
    ): MetricRow => ({
      metric,
      value,
      unit,
      baseline,
      baselineLabel,
      ratio: value / baseline,
      goal: { on: 'ratio', op, target },
    });
    const rows: MetricRow[] = [
      {
        // Against the bare proxy's added latency, measured in the same rounds: the floor of a Node proxy here.
        metric: 'gateway added latency p50 (instant upstream)',
        value: instantAdded,
        unit: 'ms',
        baseline: bareAdded,
        baselineLabel: 'ms bare proxy',
        ratio: bareAdded > 0 ? instantAdded / bareAdded : null,
        goal: { on: 'ratio', op: '<=', target: 1.1 },
      },
      info('  reference: bare fastify + undici proxy, added p50 (info)', bareAdded, 'ms'),
      // Against the bare proxy in front of the same upstream, in the same rounds.
      ratioRow(
        `gateway added latency p50 (${options.upstreamLatencyMs} ms upstream)`,
        g.latency.p50Ms - d.latency.p50Ms,
        bareFigures.addedLatencyP50Ms,
        'ms',
        'ms bare proxy',
        '<=',
        1.1,
      ),
      info(
        `  reference: bare proxy, added p50 (${options.upstreamLatencyMs} ms upstream) (info)`,
        bareFigures.addedLatencyP50Ms,
        'ms',
      ),
      ratioRow('gateway p50 latency', g.latency.p50Ms, d.latency.p50Ms, 'ms', 'ms direct', '<=', 1.25),
      ratioRow('gateway p99 latency', g.latency.p99Ms, d.latency.p99Ms, 'ms', 'ms direct', '<=', 1.5),
      ratioRow(
        `gateway saturated throughput (concurrency ${options.concurrency})`,
        g.throughput.requestsPerSecond,
        d.throughput.requestsPerSecond,
        'req/s',
        'req/s direct',
        '>=',
        0.85,
      ),
      info(
        '  reference: bare proxy saturated throughput (info)',
        bareFigures.requestsPerSecond,
        'req/s',
        d.throughput.requestsPerSecond,
        'req/s direct',
      ),
      // user + system time of the api process (every thread) during the saturated gateway blocks ÷ requests, against
      // the bare proxy's in front of the same upstream in the same rounds.
      ratioRow(
        `gateway api CPU per request (saturated, concurrency ${options.concurrency})`,
        g.cpuUsPerRequest.api!,
        bareFigures.cpuUsPerRequest,
        'µs',
        'µs bare proxy',
        '<=',
        1.25,
      ),
      info('  reference: bare proxy CPU per request (saturated) (info)', bareFigures.cpuUsPerRequest, 'µs'),
      ratioRow(
        'gateway streaming TTFT',
        g.streaming.ttftMedianMs,
        d.streaming.ttftMedianMs,
        'ms',
        'ms direct',
        '<=',
        1.1,
      ),
      {
        metric: `gateway stream chunks lost (${g.streaming.streams} streams × ${expectedChunks})`,
        value: chunksLost,
        unit: 'chunks',
        baseline: null,
        baselineLabel: null,
        ratio: null,
        goal: { on: 'value', op: '<=', target: 0 },
      },
    ];
    rows.push(
      // Against the same request unstored plus this machine's floor for storing it (a data key, two seals, two
      // durable commits a batch: stored-floor.ts), the least any erasable durable store adds.
      ratioRow(
        `gateway /responses stored: api CPU per request (saturated, concurrency ${options.concurrency})`,
        storedCpu('stored'),
        storedCpu('unstored') + storedFloor,
        'µs',
        'µs store: false + floor',
        '<=',
        1.25,
      ),
      info(
        '  the same ÷ store: false alone (info)',
        storedCpu('stored'),
        'µs',
        storedCpu('unstored'),
        'µs store: false',
      ),
      info('  reference: floor of a sealed durable write, CPU per response (info)', storedFloor, 'µs'),
    );
    const routes = {} as GatewayDetails['routes'];
    for (const name of OTHER_ROUTES) {
      const figures = figuresOf(name);
      const added = instantP50(name) - instantP50('direct');
      const lost = lostOn(name);
      routes[name] = {
        ...figures,
        addedLatencyP50Ms: figures.latency.p50Ms - d.latency.p50Ms,
        instantAddedLatencyP50Ms: added,
        chunksLost: lost,
      };
      log(
        `gateway /${name}: added p50 ${routes[name].addedLatencyP50Ms.toFixed(3)} ms (instant upstream ` +
          `${added.toFixed(3)} ms), ${figures.throughput.requestsPerSecond.toFixed(0)} req/s, TTFT ` +
          `${figures.streaming.ttftMedianMs.toFixed(3)} ms, api ${figures.cpuUsPerRequest.api} µs/request`,
      );
      // The same goals as chat completions.
      rows.push(
        {
          metric: `gateway /${name} added latency p50 (instant upstream)`,
          value: added,
          unit: 'ms',
          baseline: bareAdded,
          baselineLabel: 'ms bare proxy',
          ratio: bareAdded > 0 ? added / bareAdded : null,
          goal: { on: 'ratio', op: '<=', target: 1.1 },
        },
        ratioRow(
          `gateway /${name} added latency p50 (${options.upstreamLatencyMs} ms upstream)`,
          routes[name].addedLatencyP50Ms,
          bareFigures.addedLatencyP50Ms,
          'ms',
          'ms bare proxy',
          '<=',
          1.1,
        ),
        ratioRow(
          `gateway /${name} p50 latency`,
          figures.latency.p50Ms,
          d.latency.p50Ms,
          'ms',
          'ms direct',
          '<=',
          1.25,
        ),
        ratioRow(
          `gateway /${name} p99 latency`,
          figures.latency.p99Ms,
          d.latency.p99Ms,
          'ms',
          'ms direct',
          '<=',
          1.5,
        ),
        ratioRow(
          `gateway /${name} saturated throughput (concurrency ${options.concurrency})`,
          figures.throughput.requestsPerSecond,
          d.throughput.requestsPerSecond,
          'req/s',
          'req/s direct',
          '>=',
          0.85,
        ),
        ratioRow(
          `gateway /${name} api CPU per request (saturated, concurrency ${options.concurrency})`,
          figures.cpuUsPerRequest.api!,
          bareFigures.cpuUsPerRequest,
          'µs',
          'µs bare proxy',
          '<=',
          1.25,
        ),
        ratioRow(
          `gateway /${name} streaming TTFT`,
          figures.streaming.ttftMedianMs,
          d.streaming.ttftMedianMs,
          'ms',
          'ms direct',
          '<=',
          1.1,
        ),
        {
          metric: `gateway /${name} stream chunks lost (${figures.streaming.streams} streams × ${expectedChunks})`,
          value: lost,
          unit: 'chunks',
          baseline: null,
          baselineLabel: null,
          ratio: null,
          goal: { on: 'value', op: '<=', target: 0 },
        },
      );
    }
    return {
      rows,
      details: {
        direct: d,
        gateway: g,
        routes,
        addedLatencyP50Ms: g.latency.p50Ms - d.latency.p50Ms,
        instantUpstream: {
          directP50Ms: instantP50('direct'),
          gatewayP50Ms: instantP50('gateway'),
          addedLatencyP50Ms: instantAdded,
          bareProxyAddedLatencyP50Ms: bareAdded,
        },
        bareProxy: bareFigures,
        addedLatencyP99Ms: g.latency.p99Ms - d.latency.p99Ms,
        chunksLost,
        upstream: {
          streamChunks: options.streamChunks,
          chunkDelayMs: options.chunkDelayMs,
          latencyMs: options.upstreamLatencyMs,
          reply: REPLY,
        },
      },
    };
  } finally {
    agent.destroy();
    for (const child of [...children].reverse()) await stop(child);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('exit', killAll);
    dir.remove();
  }
}
