// OpenTelemetry traces of the built api, started as `npm start` starts it with an OTLP endpoint, received by a local
// OTLP/HTTP receiver: a gateway call is a server span with a `chat {model}` span per model attempt (GenAI semantic
// conventions), whose `traceparent` the upstream receives; a conversation turn over an Agent with Knowledge is one
// trace of the turn, its retrieval and its model call; prompts are in no span unless OTEL_CAPTURE_CONTENT=true; and an
// api without an endpoint never loads the SDK (the modules it loads are recorded by a hook preloaded with --import).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, tempDataDir, uniqueName, writeModelsFile } from './support/api.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.js';
import { spawnApi, stopProcess, type ApiProcess } from './support/process.js';
import { LLM, newAgent, newSpace } from './support/scenario.js';

/** Appends the name of every npm package the process loads, once each, to LOADED_PACKAGES_FILE. */
const HOOK = `
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
const file = process.env.LOADED_PACKAGES_FILE;
const seen = new Set();
registerHooks({
  load(url, context, nextLoad) {
    const name = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(url)?.[1];
    if (name && !seen.has(name)) {
      seen.add(name);
      appendFileSync(file, name + '\\n');
    }
    return nextLoad(url, context);
  },
});
`;

const SDK_PACKAGES = [
  '@opentelemetry/sdk-trace',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/otlp-exporter-base',
  '@opentelemetry/otlp-transformer',
  '@opentelemetry/resources',
];

const SERVER = 2;
const CLIENT = 3;

interface Started {
  readonly api: ApiProcess;
  readonly loaded: () => Set<string>;
}

describe('OpenTelemetry traces (e2e, separate processes)', () => {
  let receiver: OtlpReceiver;
  let upstream: FakeUpstream;
  let failing: FakeUpstream;
  let traced: Started;
  let capturing: Started;
  let plain: Started;

  const start = async (env: Record<string, string>): Promise<Started> => {
    const dir = tempDataDir();
    const hook = join(dir, 'record-packages.mjs');
    writeFileSync(hook, HOOK);
    const loadedFile = join(dir, 'loaded-packages.txt');
    writeFileSync(loadedFile, '');
    const modelsFile = writeModelsFile([
      'providers:',
      `  fake: { baseUrl: '${upstream.url}' }`,
      `  failing: { baseUrl: '${failing.url}' }`,
      'models:',
      '  - { key: fake-chat, modelId: fake-model, provider: fake, kind: chat, contextWindow: 64000, pricing: { input: 1, output: 2 } }',
      '  - { key: routed-chat, modelId: fake-model, provider: failing, kind: chat, pricing: { input: 1, output: 2 }, deployments: [{ name: a, provider: failing, weight: 1 }, { name: b, provider: fake, weight: 0 }] }',
    ]);
    const api = await spawnApi(
      {
        DATA_DIR: join(dir, 'data'),
        ADMIN_API_KEY: ADMIN_KEY,
        MODELS_FILE: modelsFile,
        LOG_LEVEL: 'info',
        LOADED_PACKAGES_FILE: loadedFile,
        NODE_OPTIONS: `--import=${pathToFileURL(hook).href}`,
        ...env,
      },
      60_000,
    );
    return { api, loaded: () => new Set(readFileSync(loadedFile, 'utf8').split('\n').filter(Boolean)) };
  };

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    upstream = await startFakeUpstream();
    failing = await startFakeUpstream({ failWith: { status: 500 } });
    [traced, capturing, plain] = await Promise.all([
      start({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=canary',
      }),
      start({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
        OTEL_CAPTURE_CONTENT: 'true',
        OTEL_SERVICE_NAME: 'capturing-platform',
      }),
      start({}),
    ]);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([traced, capturing, plain].map((started) => started && stopProcess(started.api.child)));
    await upstream?.close();
    await failing?.close();
    await receiver?.close();
  });

  const marker = () => `MARKER-${Math.random().toString(36).slice(2, 12).toUpperCase()}`;

  /** A key of a new API key of that api (gateway calls are made with one). */
  const apiKey = async (api: ApiProcess) => {
    const issued = await client(api.url).post<{ key: string }>(`${CORE}/api-keys`, {
      name: uniqueName('otel'),
    });
    expect(issued.status).toBe(201);
    return issued.body.key;
  };

  const chatCompletion = async (api: ApiProcess, content: string) => {
    const response = await fetch(`${api.url}/api/compat/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await apiKey(api)}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'fake-chat',
        messages: [{ role: 'user', content }],
        max_tokens: 50,
        temperature: 0.3,
      }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
  };

  /** The spans received once `found` finds what it looks for (the exporter sends a batch a second). */
  const spansUntil = async <T>(found: (spans: readonly ReceivedSpan[]) => T | undefined): Promise<T> => {
    let result: T | undefined;
    await waitUntil(async () => (result = found(receiver.spans)) !== undefined, 20_000);
    return result!;
  };

  const carrying = (text: string) =>
    receiver.spans.filter((span) => JSON.stringify(span.attributes).includes(text)).map((span) => span.name);

  it('a gateway chat completion is a server span with a `chat {model}` span, and the upstream gets its traceparent', async () => {
    const prompt = `Hello there ${marker()}`;
    const answer = await chatCompletion(traced.api, prompt);
    const { server, chat } = await spansUntil((spans) => {
      const chat = spans.find(
        (span) => span.name === 'chat fake-model' && span.resource['service.name'] === 'agent-platform',
      );
      const server = spans.find((span) => span.spanId === chat?.parentSpanId);
      return chat && server ? { server, chat } : undefined;
    });
    expect(server).toMatchObject({
      name: 'POST /api/compat/v1/chat/completions',
      kind: SERVER,
      attributes: expect.objectContaining({
        'http.route': '/api/compat/v1/chat/completions',
        'http.response.status_code': 200,
      }),
    });
    expect(chat.traceId).toBe(server.traceId);
    expect(chat.kind).toBe(CLIENT);
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'fake-model',
      'gen_ai.response.model': 'fake-model',
      'gen_ai.request.max_tokens': 50,
      'gen_ai.request.temperature': 0.3,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': answer.usage.prompt_tokens,
      'gen_ai.usage.output_tokens': answer.usage.completion_tokens,
      'server.address': '127.0.0.1',
      'server.port': upstream.port,
    });
    expect(chat.resource['service.version']).toEqual(expect.any(String));
    // The upstream request went out inside the model attempt's span: its W3C trace context names that span.
    const sent = upstream.requests.find((request) => JSON.stringify(request.body).includes(prompt));
    expect(sent?.headers.traceparent).toBe(`00-${chat.traceId}-${chat.spanId}-01`);
    // The exporter sends OTEL_EXPORTER_OTLP_HEADERS (the other traced api, exporting too, sends none); the request's
    // log line carries the trace's id.
    expect(receiver.exports).toContainEqual(expect.objectContaining({ 'x-collector-token': 'canary' }));
    expect(traced.api.output()).toContain(`"trace_id":"${server.traceId}"`);
    expect(carrying(prompt)).toEqual([]);
  });

  it('a streamed call is one span until its stream ends; a routed call has a span per attempt, the failed one marked', async () => {
    const key = await apiKey(traced.api);
    const prompt = `Stream this ${marker()}`;
    const streamed = await fetch(`${traced.api.url}/api/compat/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'fake-chat',
        stream: true,
        messages: [{ role: 'user', content: prompt }],
      }),
    });
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toContain('[DONE]');
    const sent = upstream.requests.find((request) => JSON.stringify(request.body).includes(prompt));
    const chat = await spansUntil((spans) =>
      spans.find((span) => sent?.headers.traceparent === `00-${span.traceId}-${span.spanId}-01`),
    );
    expect(chat.name).toBe('chat fake-model');
    expect(chat.attributes).toMatchObject({
      'gen_ai.request.stream': true,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.response.time_to_first_chunk': expect.any(Number),
      'gen_ai.usage.output_tokens': expect.any(Number),
    });

    const routedPrompt = `Route this ${marker()}`;
    const routed = await fetch(`${traced.api.url}/api/compat/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'routed-chat', messages: [{ role: 'user', content: routedPrompt }] }),
    });
    expect(routed.status).toBe(200);
    await routed.text();
    const answered = upstream.requests.find((request) => JSON.stringify(request.body).includes(routedPrompt));
    const traceId = answered?.headers.traceparent?.toString().split('-')[1];
    const attempts = await spansUntil((spans) => {
      const found = spans.filter((span) => span.traceId === traceId && span.name === 'chat fake-model');
      return found.length === 2 ? found : undefined;
    });
    expect(
      attempts.map((span) => [span.attributes['agent_platform.deployment'], span.attributes['error.type']]),
    ).toEqual(
      expect.arrayContaining([
        ['routed-chat/a', '500'],
        ['routed-chat/b', undefined],
      ]),
    );
    expect(attempts.find((span) => span.attributes['error.type'])?.statusCode).toBe(2);
  });

  it('a conversation turn over an Agent with Knowledge is one trace: the turn, its retrieval and its model call', async () => {
    const admin = client(traced.api.url);
    const spaceId = await newSpace(admin, uniqueName('Traced'));
    const agentId = await newAgent(admin, spaceId, { model: 'fake-chat' });
    const added = await admin.post<{ id: string }>(`${CORE}/knowledge/${agentId}/documents`, {
      name: 'volcanoes.md',
      text: '# Etna\n\nEtna is the volcano of Sicily.\n',
    });
    expect(added.status).toBe(201);
    await waitUntil(
      async () =>
        (await admin.get(`${CORE}/knowledge/${agentId}/documents/${added.body.id}`)).body.status === 'Ready',
      30_000,
    );
    const question = `Which volcano is in Sicily? ${marker()}`;
    const turn = await admin.post<{ conversationId: string }>(`${LLM}/${agentId}/conversation`, {
      message: question,
    });
    expect(turn.status).toBe(201);
    const { agent, retrieval, chat } = await spansUntil((spans) => {
      const agent = spans.find(
        (span) => span.name.startsWith('invoke_agent ') && span.attributes['gen_ai.agent.id'] === agentId,
      );
      const children = spans.filter((span) => agent && span.parentSpanId === agent.spanId);
      const retrieval = children.find((span) => span.name === 'retrieval knowledge');
      const chat = children.find((span) => span.name === 'chat fake-model');
      return agent && retrieval && chat ? { agent, retrieval, chat } : undefined;
    });
    expect(agent.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': turn.body.conversationId,
    });
    const server = receiver.spans.find((span) => span.spanId === agent.parentSpanId);
    expect(server?.name).toBe('POST /api/v1/core/llm/:agentId/conversation');
    expect(new Set([server?.traceId, agent.traceId, retrieval.traceId, chat.traceId]).size).toBe(1);
    expect(retrieval.attributes).toMatchObject({
      'gen_ai.operation.name': 'retrieval',
      'gen_ai.data_source.id': 'knowledge',
    });
    expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(carrying(question)).toEqual([]);
  });

  it('with OTEL_CAPTURE_CONTENT=true the model span carries the prompt and the answer', async () => {
    const prompt = `Tell me a story ${marker()}`;
    await chatCompletion(capturing.api, prompt);
    const chat = await spansUntil((spans) =>
      spans.find(
        (span) =>
          span.resource['service.name'] === 'capturing-platform' &&
          String(span.attributes['gen_ai.input.messages'] ?? '').includes(prompt),
      ),
    );
    expect(JSON.parse(chat.attributes['gen_ai.input.messages'] as string)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: prompt }] },
    ]);
    expect(JSON.parse(chat.attributes['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: `Echo: ${prompt}` }], finish_reason: 'stop' },
    ]);
  });

  it('an applied projection batch is a trace of its own', async () => {
    const batch = await spansUntil((spans) =>
      spans.find(
        (span) => span.name.startsWith('projection ') && span.resource['service.name'] === 'agent-platform',
      ),
    );
    expect(batch.parentSpanId).toBeUndefined();
    expect(batch.attributes['agent_platform.projection.events']).toBeGreaterThan(0);
  });

  it('an api without an OTLP endpoint loads none of the SDK; one with an endpoint does', async () => {
    await chatCompletion(plain.api, 'Hello without tracing');
    const last = upstream.requests.at(-1);
    expect(last?.headers.traceparent).toBeUndefined();
    expect(plain.loaded()).toContain('pino');
    expect(SDK_PACKAGES.filter((name) => plain.loaded().has(name))).toEqual([]);
    expect(SDK_PACKAGES.filter((name) => !traced.loaded().has(name))).toEqual([]);
    expect(plain.api.output()).not.toContain('trace_id');
  });
});
