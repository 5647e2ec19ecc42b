// A fake OpenAI-compatible upstream for tests and the benchmark: the network edge we do not own.
// Plain node:http on 127.0.0.1 (random port), speaking the wire format the `openai` SDK expects:
// chat completions (JSON and SSE), the Responses API (JSON and typed SSE events), embeddings (float and base64),
// models and rerank.
// Over 300 lines on purpose: test support (not product code) that stands in for a whole upstream API surface.
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** The error object inside OpenAI's envelope `{ error: { message, type, code, param } }`. */
export interface OpenAIErrorObject {
  message: string;
  type: string;
  code: string | null;
  param: string | null;
}

export interface FakeUpstreamFailure {
  status: number;
  /** Fields of the error envelope; defaults depend on the status (429: `requests` / `rate_limit_exceeded`). */
  error?: Partial<OpenAIErrorObject>;
  /** Raw response body sent verbatim instead of the envelope (string as is, anything else as JSON). */
  body?: unknown;
  /** Extra response headers, e.g. `{ 'retry-after-ms': '10' }` to make SDK retries fast. */
  headers?: Record<string, string>;
}

export interface FakeUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
}

export interface FakeToolCall {
  name: string;
  /** A JSON string, or a value that is serialised with JSON.stringify. */
  arguments: string | Record<string, unknown>;
}

export interface FakeUpstreamRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  query: Record<string, string>;
  /** Node's lower-cased request headers. */
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; `undefined` when the body is empty or not JSON (see `rawBody`). */
  body: unknown;
  rawBody: string;
  receivedAt: number;
}

export interface FakeUpstreamBehaviour {
  /** Delay before anything is sent (status line, headers and first chunk). */
  latencyMs: number;
  /** Delay between consecutive SSE chunks. */
  chunkDelayMs: number;
  /** Answer this error; with `failTimes` only for that many requests. */
  failWith?: FakeUpstreamFailure;
  /**
   * Fail the next N requests (with `failWith`, or a 500 when unset), then succeed: once the budget is
   * spent both `failTimes` and `failWith` are cleared. Unset: `failWith` applies to every request.
   */
  failTimes?: number;
  /** Never answer (the request is recorded and counted in flight until the client goes away). */
  hang: boolean;
  /** Streams only: send this many SSE chunks, then stall with the connection open (idle timeouts). */
  stallAfterChunks?: number;
  /** Streams only: send this many SSE chunks, then cut the connection (a stream broken mid-way). */
  cutAfterChunks?: number;
  /** Reset the connection as soon as the request is read, answering nothing (a peer that drops the call). */
  reset?: boolean;
  /** Assistant text; default `Echo: <last user message text>`. */
  reply?: string | ((request: FakeUpstreamRequest) => string);
  /**
   * Answer with this tool call (finish_reason `tool_calls`) instead of text. A function decides per request, so a
   * test can script a tool loop (first request → a call, the one carrying the tool result → text); `undefined`
   * from it answers text.
   */
  toolCall?: FakeToolCall | ((request: FakeUpstreamRequest) => FakeToolCall | undefined);
  /** Overrides of the computed usage (prompt: words in the messages, completion: words in the reply). */
  usage?: FakeUsage;
  /** Number of content (or tool-argument) chunks a streamed reply is split into; default one per word. */
  streamChunks?: number;
  /** Embedding dimension when the request has no `dimensions` (default 8). */
  embeddingDimensions: number;
  /** Model ids listed by `GET /v1/models`. */
  models: string[];
  /** When set, requests without `Authorization: Bearer <requireApiKey>` get a 401. */
  requireApiKey?: string;
}

export type FakeUpstreamOptions = Partial<FakeUpstreamBehaviour>;

export interface FakeUpstream {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:41234/v1`. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in arrival order (the same array instance across `reset()`). */
  readonly requests: FakeUpstreamRequest[];
  /** Requests whose client closed the connection before the response finished. */
  readonly aborted: number;
  /**
   * Stream chunks written so far (all requests). Streams respect backpressure like a real server: a write that
   * fills the socket waits for the client (the gateway) to read, so this shows how much a stalled reader pulled.
   */
  readonly chunksWritten: number;
  /** Requests received and not yet finished or aborted. */
  readonly inFlight: number;
  /** Current behaviour (a copy). */
  readonly behaviour: Readonly<FakeUpstreamBehaviour>;
  /** Changes behaviour at runtime; a key present with `undefined` clears that setting. */
  set(partial: FakeUpstreamOptions): void;
  /** Clears recorded requests and the aborted counter, and restores the behaviour given at start. */
  reset(): void;
  /** Closes the server and destroys every open socket (hanging requests included). */
  close(): Promise<void>;
}

const DEFAULTS: FakeUpstreamBehaviour = {
  latencyMs: 0,
  chunkDelayMs: 0,
  hang: false,
  embeddingDimensions: 8,
  models: ['fake-model', 'fake-embedding-model'],
};

interface Exchange {
  request: FakeUpstreamRequest;
  res: ServerResponse;
  signal: AbortSignal;
  requestId: string;
}

class HttpError extends Error {
  readonly status: number;
  readonly error: Partial<OpenAIErrorObject>;

  constructor(status: number, error: Partial<OpenAIErrorObject>) {
    super(error.message);
    this.status = status;
    this.error = error;
  }
}

export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const initial: FakeUpstreamBehaviour = { ...DEFAULTS, ...options };
  let behaviour: FakeUpstreamBehaviour = { ...initial };
  const requests: FakeUpstreamRequest[] = [];
  const sockets = new Set<Socket>();
  let aborted = 0;
  let chunksWritten = 0;
  let inFlight = 0;
  let sequence = 0;
  let closing = false;

  const server = createServer((req, res) => {
    sequence += 1;
    const requestId = `req_fake_${sequence}`;
    const controller = new AbortController();
    inFlight += 1;
    res.on('close', () => {
      inFlight -= 1;
      if (!res.writableFinished) {
        if (!closing) aborted += 1;
        controller.abort();
      }
    });
    handle(req, res, controller.signal, requestId).catch((error: unknown) => {
      if (controller.signal.aborted || res.destroyed) return;
      const message = error instanceof Error ? error.message : String(error);
      if (res.headersSent) res.destroy();
      else sendError(res, requestId, 500, { message, type: 'server_error' });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    signal: AbortSignal,
    requestId: string,
  ): Promise<void> {
    const rawBody = await readBody(req);
    const parsedUrl = new URL(req.url ?? '/', 'http://127.0.0.1');
    let body: unknown;
    let invalidJson = false;
    // Multipart bodies (audio transcriptions) are not JSON: they are read from `rawBody`.
    if (rawBody.length > 0 && !String(req.headers['content-type'] ?? '').startsWith('multipart/form-data')) {
      try {
        body = JSON.parse(rawBody);
      } catch {
        invalidJson = true;
      }
    }
    const request: FakeUpstreamRequest = {
      method: req.method ?? 'GET',
      path: parsedUrl.pathname,
      query: Object.fromEntries(parsedUrl.searchParams),
      headers: req.headers,
      body,
      rawBody,
      receivedAt: Date.now(),
    };
    requests.push(request);
    const current = behaviour;
    const exchange: Exchange = { request, res, signal, requestId };

    if (current.hang) {
      await waitForAbort(signal);
      return;
    }
    if (current.reset) {
      req.socket.destroy();
      return;
    }
    const failure = takeFailure();
    if (!(await pause(current.latencyMs, signal))) return;

    if (
      current.requireApiKey !== undefined &&
      req.headers.authorization !== `Bearer ${current.requireApiKey}`
    ) {
      sendError(res, requestId, 401, {
        message: 'Incorrect API key provided.',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      });
      return;
    }
    if (failure) {
      sendFailure(res, requestId, failure);
      return;
    }
    try {
      if (invalidJson) {
        throw new HttpError(400, { message: 'We could not parse the JSON body of your request.' });
      }
      await route(exchange, current);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      sendError(res, requestId, error.status, error.error);
    }
  }

  function takeFailure(): FakeUpstreamFailure | undefined {
    const { failWith, failTimes } = behaviour;
    if (failTimes === undefined) return failWith;
    if (failTimes <= 0) {
      behaviour = { ...behaviour, failTimes: undefined, failWith: undefined };
      return undefined;
    }
    const failure = failWith ?? { status: 500 };
    behaviour =
      failTimes === 1
        ? { ...behaviour, failTimes: undefined, failWith: undefined }
        : { ...behaviour, failTimes: failTimes - 1 };
    return failure;
  }

  async function route(exchange: Exchange, current: FakeUpstreamBehaviour): Promise<void> {
    const { method, path } = exchange.request;
    if (method === 'POST' && path === '/v1/chat/completions') return chatCompletions(exchange, current);
    if (method === 'POST' && path === '/v1/responses') return responses(exchange, current);
    if (method === 'POST' && path === '/v1/embeddings') return embeddings(exchange, current);
    if (method === 'POST' && path === '/v1/rerank') return rerank(exchange);
    if (method === 'POST' && path === '/v1/images/generations') return images(exchange);
    if (method === 'POST' && path === '/v1/audio/speech') return speech(exchange);
    if (method === 'POST' && path === '/v1/audio/transcriptions') return transcriptions(exchange);
    if (method === 'GET' && path === '/v1/models') {
      sendJson(exchange.res, exchange.requestId, 200, {
        object: 'list',
        data: current.models.map(modelObject),
      });
      return;
    }
    if (method === 'GET' && path.startsWith('/v1/models/')) {
      const id = decodeURIComponent(path.slice('/v1/models/'.length));
      if (!current.models.includes(id)) throw modelNotFound(id);
      sendJson(exchange.res, exchange.requestId, 200, modelObject(id));
      return;
    }
    throw new HttpError(404, {
      message: `Invalid URL (${method} ${path})`,
      type: 'invalid_request_error',
    });
  }

  async function chatCompletions(exchange: Exchange, current: FakeUpstreamBehaviour): Promise<void> {
    const body = asRecord(exchange.request.body);
    const model = requireModel(body);
    const messages = body.messages;
    if (!Array.isArray(messages) || messages.length === 0) {
      throw new HttpError(400, { message: "'messages' must be a non-empty array.", param: 'messages' });
    }
    sequence += 1;
    const id = `chatcmpl-fake-${sequence}`;
    const created = Math.floor(Date.now() / 1000);
    const scripted =
      typeof current.toolCall === 'function' ? current.toolCall(exchange.request) : current.toolCall;
    const toolCall = scripted
      ? {
          id: `call_fake_${sequence}`,
          name: scripted.name,
          arguments:
            typeof scripted.arguments === 'string' ? scripted.arguments : JSON.stringify(scripted.arguments),
        }
      : undefined;
    const text = toolCall
      ? null
      : typeof current.reply === 'function'
        ? current.reply(exchange.request)
        : (current.reply ?? `Echo: ${lastUserText(messages)}`);
    const usage = computeUsage(
      messages.map((message) => contentText(asRecord(message).content)).join(' '),
      toolCall ? toolCall.arguments : (text ?? ''),
      current.usage,
    );
    const finishReason = toolCall ? 'tool_calls' : 'stop';

    if (body.stream !== true) {
      sendJson(exchange.res, exchange.requestId, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text,
              refusal: null,
              annotations: [],
              ...(toolCall
                ? {
                    tool_calls: [
                      {
                        id: toolCall.id,
                        type: 'function',
                        function: { name: toolCall.name, arguments: toolCall.arguments },
                      },
                    ],
                  }
                : {}),
            },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
        usage,
        service_tier: 'default',
        system_fingerprint: 'fp_fake',
      });
      return;
    }

    const includeUsage = asRecord(body.stream_options).include_usage === true;
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      service_tier: 'default',
      system_fingerprint: 'fp_fake',
      choices,
      ...(includeUsage ? { usage: null } : {}),
      ...extra,
    });
    const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({
      index: 0,
      delta,
      logprobs: null,
      finish_reason: finish,
    });
    const events: unknown[] = [];
    if (toolCall) {
      events.push(
        chunk([
          choice({
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                index: 0,
                id: toolCall.id,
                type: 'function',
                function: { name: toolCall.name, arguments: '' },
              },
            ],
          }),
        ]),
      );
      for (const piece of splitPieces(toolCall.arguments, current.streamChunks, 'characters')) {
        events.push(chunk([choice({ tool_calls: [{ index: 0, function: { arguments: piece } }] })]));
      }
    } else {
      events.push(chunk([choice({ role: 'assistant', content: '', refusal: null })]));
      for (const piece of splitPieces(text ?? '', current.streamChunks, 'words')) {
        events.push(chunk([choice({ content: piece })]));
      }
    }
    events.push(chunk([choice({}, finishReason)]));
    if (includeUsage) events.push(chunk([], { usage }));

    const { res, signal } = exchange;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': exchange.requestId,
    });
    res.flushHeaders();
    for (const [index, event] of events.entries()) {
      if (current.stallAfterChunks !== undefined && index >= current.stallAfterChunks) {
        await waitForAbort(signal);
        return;
      }
      if (current.cutAfterChunks !== undefined && index >= current.cutAfterChunks) {
        res.socket?.destroy();
        return;
      }
      if (index > 0 && !(await pause(current.chunkDelayMs, signal))) return;
      if (signal.aborted) return;
      chunksWritten++;
      if (!res.write(`data: ${JSON.stringify(event)}\n\n`)) await drainedOrAborted(res, signal);
    }
    if (signal.aborted) return;
    res.end('data: [DONE]\n\n');
  }

  /** The Responses API, stateless: a message (or the scripted function call) and usage; typed events when streamed. */
  async function responses(exchange: Exchange, current: FakeUpstreamBehaviour): Promise<void> {
    const body = asRecord(exchange.request.body);
    const model = requireModel(body);
    const items: unknown[] =
      typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input as unknown[]);
    if (!Array.isArray(items) || items.length === 0)
      throw new HttpError(400, { message: "'input' must be a string or a non-empty array.", param: 'input' });
    sequence += 1;
    const scripted =
      typeof current.toolCall === 'function' ? current.toolCall(exchange.request) : current.toolCall;
    const args = scripted
      ? typeof scripted.arguments === 'string'
        ? scripted.arguments
        : JSON.stringify(scripted.arguments)
      : '';
    const text = scripted
      ? ''
      : typeof current.reply === 'function'
        ? current.reply(exchange.request)
        : (current.reply ?? `Echo: ${lastUserText(items)}`);
    const chat = computeUsage(
      items.map((item) => contentText(asRecord(item).content)).join(' '),
      scripted ? args : text,
      current.usage,
    );
    const usage = {
      input_tokens: chat.prompt_tokens,
      input_tokens_details: { cached_tokens: chat.prompt_tokens_details.cached_tokens },
      output_tokens: chat.completion_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: chat.total_tokens,
    };
    const item = scripted
      ? {
          type: 'function_call',
          id: `fc_fake_${sequence}`,
          call_id: `call_fake_${sequence}`,
          name: scripted.name,
          arguments: args,
          status: 'completed',
        }
      : {
          type: 'message',
          id: `msg_fake_${sequence}`,
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
        };
    const response = (status: string, output: unknown[], withUsage: boolean) => ({
      id: `resp_fake_${sequence}`,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status,
      error: null,
      incomplete_details: null,
      model,
      output,
      parallel_tool_calls: true,
      store: body.store ?? true,
      tool_choice: body.tool_choice ?? 'auto',
      tools: body.tools ?? [],
      usage: withUsage ? usage : null,
    });
    if (body.stream !== true) {
      sendJson(exchange.res, exchange.requestId, 200, response('completed', [item], true));
      return;
    }
    const events: Record<string, unknown>[] = [
      { type: 'response.created', response: response('in_progress', [], false) },
      { type: 'response.in_progress', response: response('in_progress', [], false) },
    ];
    const at = { item_id: item.id, output_index: 0 };
    if (scripted) {
      events.push({
        type: 'response.output_item.added',
        output_index: 0,
        item: { ...item, arguments: '', status: 'in_progress' },
      });
      for (const delta of splitPieces(args, current.streamChunks, 'characters'))
        events.push({ type: 'response.function_call_arguments.delta', ...at, delta });
      events.push({ type: 'response.function_call_arguments.done', ...at, arguments: args });
    } else {
      const part = { type: 'output_text', text: '', annotations: [] };
      events.push(
        {
          type: 'response.output_item.added',
          output_index: 0,
          item: { ...item, status: 'in_progress', content: [] },
        },
        { type: 'response.content_part.added', ...at, content_index: 0, part },
      );
      for (const delta of splitPieces(text, current.streamChunks, 'words'))
        events.push({ type: 'response.output_text.delta', ...at, content_index: 0, delta, logprobs: [] });
      events.push(
        { type: 'response.output_text.done', ...at, content_index: 0, text, logprobs: [] },
        { type: 'response.content_part.done', ...at, content_index: 0, part: { ...part, text } },
      );
    }
    events.push(
      { type: 'response.output_item.done', output_index: 0, item },
      { type: 'response.completed', response: response('completed', [item], true) },
    );
    const { res, signal } = exchange;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': exchange.requestId,
    });
    res.flushHeaders();
    for (const [index, event] of events.entries()) {
      if (current.stallAfterChunks !== undefined && index >= current.stallAfterChunks) {
        await waitForAbort(signal);
        return;
      }
      if (index > 0 && !(await pause(current.chunkDelayMs, signal))) return;
      if (signal.aborted) return;
      chunksWritten++;
      const frame = `event: ${event.type as string}\ndata: ${JSON.stringify({ ...event, sequence_number: index })}\n\n`;
      if (!res.write(frame)) await drainedOrAborted(res, signal);
    }
    if (!signal.aborted) res.end();
  }

  async function embeddings(exchange: Exchange, current: FakeUpstreamBehaviour): Promise<void> {
    const body = asRecord(exchange.request.body);
    const model = requireModel(body);
    const inputs = embeddingInputs(body.input);
    const dimensions = body.dimensions ?? current.embeddingDimensions;
    if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1) {
      throw new HttpError(400, { message: "'dimensions' must be a positive integer.", param: 'dimensions' });
    }
    const format = body.encoding_format ?? 'float';
    if (format !== 'float' && format !== 'base64') {
      throw new HttpError(400, {
        message: "'encoding_format' must be 'float' or 'base64'.",
        param: 'encoding_format',
      });
    }
    const promptTokens = inputs.reduce((sum, input) => sum + input.tokens, 0);
    sendJson(exchange.res, exchange.requestId, 200, {
      object: 'list',
      data: inputs.map((input, index) => {
        const vector = fakeEmbedding(input.text, dimensions);
        return {
          object: 'embedding',
          index,
          embedding:
            format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
        };
      }),
      model,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    });
  }

  /** Images: a 1×1 PNG per image, base64 (`response_format: b64_json`); `size` is echoed in `revised_prompt`. */
  async function images(exchange: Exchange): Promise<void> {
    const body = asRecord(exchange.request.body);
    requireModel(body);
    if (typeof body.prompt !== 'string' || body.prompt.length === 0)
      throw new HttpError(400, { message: "'prompt' must be a non-empty string.", param: 'prompt' });
    sendJson(exchange.res, exchange.requestId, 200, {
      created: Math.floor(Date.now() / 1000),
      data: [{ b64_json: ONE_PIXEL_PNG, revised_prompt: `${body.prompt} (${String(body.size ?? 'auto')})` }],
    });
  }

  /** `/audio/speech`: a "WAV" whose bytes name the voice and the input (enough to check what was sent). */
  async function speech(exchange: Exchange): Promise<void> {
    const body = asRecord(exchange.request.body);
    requireModel(body);
    if (typeof body.input !== 'string' || typeof body.voice !== 'string')
      throw new HttpError(400, { message: "'input' and 'voice' are required.", param: 'input' });
    const audio = Buffer.concat([
      Buffer.from('RIFF\0\0\0\0WAVE', 'latin1'),
      Buffer.from(`${body.voice}:${body.input}`),
    ]);
    exchange.res.writeHead(200, {
      'content-type': 'audio/wav',
      'content-length': audio.length,
      'x-request-id': exchange.requestId,
    });
    exchange.res.end(audio);
  }

  /** `/audio/transcriptions` (multipart): answers which model heard how large a file, and the prompt. */
  async function transcriptions(exchange: Exchange): Promise<void> {
    const raw = exchange.request.rawBody;
    const field = (name: string) => new RegExp(`name="${name}"\\r\\n\\r\\n([^\\r]*)`).exec(raw)?.[1];
    const model = field('model');
    if (!model || !/name="file"; filename="/.test(raw))
      throw new HttpError(400, { message: "'model' and 'file' are required.", param: 'file' });
    const prompt = field('prompt');
    sendJson(exchange.res, exchange.requestId, 200, {
      text: `heard by ${model}${prompt ? ` (prompt: ${prompt})` : ''}`,
    });
  }

  async function rerank(exchange: Exchange): Promise<void> {
    const body = asRecord(exchange.request.body);
    const model = requireModel(body);
    if (typeof body.query !== 'string') {
      throw new HttpError(400, { message: "'query' must be a string.", param: 'query' });
    }
    if (!Array.isArray(body.documents)) {
      throw new HttpError(400, { message: "'documents' must be an array.", param: 'documents' });
    }
    const queryWords = new Set(words(body.query.toLowerCase()));
    const documents = body.documents.map((document) =>
      typeof document === 'string' ? document : contentText(asRecord(document).text),
    );
    const scored = documents
      .map((text, index) => {
        const documentWords = new Set(words(text.toLowerCase()));
        const hits = [...queryWords].filter((word) => documentWords.has(word)).length;
        return { index, relevance_score: queryWords.size === 0 ? 0 : hits / queryWords.size, text };
      })
      .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
    const topN = typeof body.top_n === 'number' ? body.top_n : scored.length;
    sendJson(exchange.res, exchange.requestId, 200, {
      id: `rerank-fake-${sequence}`,
      model,
      results: scored.slice(0, topN).map(({ index, relevance_score, text }) => ({
        index,
        relevance_score,
        ...(body.return_documents === true ? { document: { text } } : {}),
      })),
      usage: { total_tokens: wordCount(body.query) + documents.reduce((sum, d) => sum + wordCount(d), 0) },
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A large backlog: a gateway opening a thousand connections at once is not slowed by dropped SYNs here.
    server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    get chunksWritten() {
      return chunksWritten;
    },
    get aborted() {
      return aborted;
    },
    get inFlight() {
      return inFlight;
    },
    get behaviour() {
      return { ...behaviour };
    },
    set(partial: FakeUpstreamOptions) {
      behaviour = { ...behaviour, ...partial } as FakeUpstreamBehaviour;
      for (const key of ['latencyMs', 'chunkDelayMs', 'hang', 'embeddingDimensions', 'models'] as const) {
        if (behaviour[key] === undefined)
          (behaviour as unknown as Record<string, unknown>)[key] = DEFAULTS[key];
      }
    },
    reset() {
      requests.length = 0;
      aborted = 0;
      chunksWritten = 0;
      behaviour = { ...initial };
    },
    close() {
      closing = true;
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}

// ---- wire helpers ----

/** A valid 1×1 PNG, base64. */
const ONE_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function sendJson(res: ServerResponse, requestId: string, status: number, payload: unknown): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-request-id': requestId,
  });
  res.end(text);
}

function sendError(
  res: ServerResponse,
  requestId: string,
  status: number,
  error: Partial<OpenAIErrorObject>,
): void {
  sendJson(res, requestId, status, { error: errorEnvelope(status, error) });
}

function sendFailure(res: ServerResponse, requestId: string, failure: FakeUpstreamFailure): void {
  if (failure.body !== undefined) {
    const text = typeof failure.body === 'string' ? failure.body : JSON.stringify(failure.body);
    res.writeHead(failure.status, {
      'content-type': typeof failure.body === 'string' ? 'text/plain' : 'application/json',
      'content-length': Buffer.byteLength(text),
      'x-request-id': requestId,
      ...failure.headers,
    });
    res.end(text);
    return;
  }
  const text = JSON.stringify({ error: errorEnvelope(failure.status, failure.error ?? {}) });
  res.writeHead(failure.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-request-id': requestId,
    ...failure.headers,
  });
  res.end(text);
}

/** OpenAI's error object with defaults that follow the status, overridden by the given fields. */
function errorEnvelope(status: number, error: Partial<OpenAIErrorObject>): OpenAIErrorObject {
  const defaults: Record<number, Omit<OpenAIErrorObject, 'param'>> = {
    400: { message: 'Invalid request.', type: 'invalid_request_error', code: null },
    401: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
    403: { message: 'Permission denied.', type: 'invalid_request_error', code: 'permission_denied' },
    404: { message: 'Not found.', type: 'invalid_request_error', code: 'not_found' },
    408: { message: 'Request timed out.', type: 'timeout', code: 'timeout' },
    429: { message: 'Rate limit reached for requests.', type: 'requests', code: 'rate_limit_exceeded' },
    500: {
      message: 'The server had an error while processing your request.',
      type: 'server_error',
      code: null,
    },
    502: { message: 'Bad gateway.', type: 'server_error', code: 'bad_gateway' },
    503: {
      message: 'The engine is currently overloaded.',
      type: 'server_error',
      code: 'service_unavailable',
    },
  };
  const base = defaults[status] ?? {
    message: `Upstream error ${status}.`,
    type: status >= 500 ? 'server_error' : 'invalid_request_error',
    code: null,
  };
  return {
    message: error.message ?? base.message,
    type: error.type ?? base.type,
    code: error.code !== undefined ? error.code : base.code,
    param: error.param ?? null,
  };
}

function modelNotFound(model: string): HttpError {
  return new HttpError(404, {
    message: `The model '${model}' does not exist or you do not have access to it.`,
    code: 'model_not_found',
    param: 'model',
  });
}

function modelObject(id: string) {
  return { id, object: 'model', created: 1_700_000_000, owned_by: 'fake-upstream' };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Sleeps; false when the client went away meanwhile. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  if (ms <= 0) return true;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

function drainedOrAborted(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.once('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

// ---- content helpers ----

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function requireModel(body: Record<string, unknown>): string {
  if (typeof body.model !== 'string' || body.model.length === 0) {
    throw new HttpError(400, {
      message: 'You must provide a model parameter.',
      param: 'model',
    });
  }
  return body.model;
}

/** Text of a message content: a string, or the text parts of a content array. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => asRecord(part))
      .filter((part) => typeof part.text === 'string')
      .map((part) => part.text as string)
      .join(' ');
  }
  return '';
}

function lastUserText(messages: unknown[]): string {
  const last = [...messages].reverse().find((message) => asRecord(message).role === 'user');
  return contentText(asRecord(last).content);
}

function words(text: string): string[] {
  return text.split(/\s+/).filter((word) => word.length > 0);
}

const SPACE = /\s/;

/**
 * `words(text).length`, counted without splitting: the benchmarks' fake stands for an instant upstream, and a long
 * conversation's prompt (100,000 characters) split into an array cost it more than the platform's whole turn.
 */
function wordCount(text: string): number {
  let count = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const space = code === 32 || (code >= 9 && code <= 13) || (code > 127 && SPACE.test(text[i]!));
    if (space) inWord = false;
    else if (!inWord) {
      inWord = true;
      count++;
    }
  }
  return count;
}

function computeUsage(prompt: string, completion: string, override: FakeUsage = {}) {
  const promptTokens = override.prompt_tokens ?? Math.max(1, wordCount(prompt));
  const completionTokens = override.completion_tokens ?? wordCount(completion);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: {
      cached_tokens: override.prompt_tokens_details?.cached_tokens ?? 0,
      audio_tokens: 0,
    },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/**
 * Splits text into pieces whose concatenation is the text: `count` near-equal pieces when given,
 * otherwise one per word (leading whitespace attached) or per 8 characters.
 */
function splitPieces(text: string, count: number | undefined, unit: 'words' | 'characters'): string[] {
  if (text.length === 0) return [];
  const chars = Array.from(text);
  if (count !== undefined) {
    const n = Math.min(Math.max(1, Math.floor(count)), chars.length);
    const pieces: string[] = [];
    for (let i = 0; i < n; i += 1) {
      pieces.push(
        chars.slice(Math.floor((i * chars.length) / n), Math.floor(((i + 1) * chars.length) / n)).join(''),
      );
    }
    return pieces;
  }
  if (unit === 'characters') {
    const pieces: string[] = [];
    for (let i = 0; i < chars.length; i += 8) pieces.push(chars.slice(i, i + 8).join(''));
    return pieces;
  }
  const pieces: string[] = [...(text.match(/\s*\S+/g) ?? [])];
  const trailing = text.slice(pieces.join('').length);
  if (trailing.length > 0) {
    if (pieces.length > 0) pieces[pieces.length - 1] += trailing;
    else pieces.push(trailing);
  }
  return pieces;
}

function embeddingInputs(input: unknown): { text: string; tokens: number }[] {
  const invalid = () =>
    new HttpError(400, {
      message: "'input' must be a string, an array of strings, or an array of token arrays.",
      param: 'input',
    });
  const one = (value: unknown): { text: string; tokens: number } => {
    if (typeof value === 'string') return { text: value, tokens: Math.max(1, wordCount(value)) };
    if (Array.isArray(value) && value.length > 0 && value.every((token) => typeof token === 'number')) {
      return { text: `tokens:${value.join(',')}`, tokens: value.length };
    }
    throw invalid();
  };
  if (typeof input === 'string') return [one(input)];
  if (!Array.isArray(input) || input.length === 0) throw invalid();
  if (input.every((token) => typeof token === 'number')) return [one(input)];
  return input.map(one);
}

/** A unit-length vector derived from the text, with every component exactly representable as float32. */
function fakeEmbedding(text: string, dimensions: number): number[] {
  const raw: number[] = [];
  for (let block = 0; raw.length < dimensions; block += 1) {
    const digest = createHash('sha256').update(`${block}:${text}`).digest();
    for (let offset = 0; offset + 4 <= digest.length && raw.length < dimensions; offset += 4) {
      raw.push((digest.readUInt32LE(offset) / 0xffffffff) * 2 - 1);
    }
  }
  const norm = Math.sqrt(raw.reduce((sum, value) => sum + value * value, 0)) || 1;
  return raw.map((value) => Math.fround(value / norm));
}
