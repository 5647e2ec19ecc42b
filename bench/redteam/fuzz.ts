// Fuzzing against a running api: mutated requests to every route family (random methods, bodies, content types, query
// strings, headers, ids, multipart junk, bad UTF-8, raw malformed HTTP), counting answers that are 5xx or an error
// without the envelope, and checking the api's log for the canary key sent in query strings. Deterministic (seeded).
import { connect } from 'node:net';
import { seededRandom } from '#kernel';
import { ADMIN_KEY, log, report, spaceAndAgent, startApi } from './harness.js';

const CANARY = 'sk-fuzz-canary-5d1e0c';

export async function fuzz(dataDir: string, total = 10_000): Promise<void> {
  const api = await startApi(dataDir, { LOG_LEVEL: 'info' });
  const { spaceId, agentId } = await spaceAndAgent(api.base, 'Fuzz');
  let canaryLogged = false;
  for (const stream of [api.api.child.stdout, api.api.child.stderr])
    stream?.on('data', (chunk: Buffer) => {
      if (chunk.toString('utf8').includes(CANARY)) canaryLogged = true;
    });
  // Seeded, so a run can be repeated.
  const next = seededRandom(20261122);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const ids = [agentId, spaceId, 'agt_nope', '%00', '..%2f..', 'x'.repeat(300), '%ff%fe', '🦊', '1e309', ''];
  const routes = [
    '/api/v1/core/spaces',
    '/api/v1/core/spaces/{id}',
    '/api/v1/core/agents',
    '/api/v1/core/agents/{id}',
    '/api/v1/core/agents/{id}/prompt',
    '/api/v1/core/api-keys',
    '/api/v1/core/api-keys/{id}',
    '/api/v1/core/users/me',
    '/api/v1/core/knowledge/{id}/documents',
    '/api/v1/core/knowledge/{id}/documents/{id}',
    '/api/v1/core/knowledge/{id}/documents/bulk',
    '/api/v1/core/knowledge/{id}/documents/download',
    '/api/v1/core/knowledge/{id}/search',
    '/api/v1/core/knowledge/{id}/tags',
    '/api/v1/core/knowledge/{id}/summary-index/build',
    '/api/v1/core/llm/{id}/generateText',
    '/api/v1/core/llm/{id}/generateObject',
    '/api/v1/core/llm/{id}/generateImage',
    '/api/v1/core/usage',
    '/api/v1/core/cost-control/{id}',
    '/api/compat/v1/chat/completions',
    '/api/compat/v1/embeddings',
    '/api/compat/v1/rerank',
    '/api/compat/v1/models/{id}',
  ];
  const values: unknown[] = [
    null,
    true,
    -1,
    1e308,
    'x',
    '',
    'a'.repeat(20_000),
    [],
    {},
    [1, 2],
    { $gt: '' },
    { __proto__: { polluted: 1 } },
    '\u0000\ud800',
    [[15339, -1]],
    { type: 'array', minItems: 1e9 },
  ];
  const fields = [
    'name',
    'spaceId',
    'model',
    'messages',
    'input',
    'query',
    'schema',
    'text',
    'prompt',
    'tokens',
    'window',
    'documentIds',
    'action',
    'systemPrompt',
    'stream',
    'tools',
    'aspectRatio',
    'limit',
  ];
  const body = (): { text: string | Uint8Array; type: string } => {
    const kind = next();
    if (kind < 0.55) {
      const object: Record<string, unknown> = {};
      for (let i = 0; i < 1 + Math.floor(next() * 4); i++) object[pick(fields)] = pick(values);
      if (next() < 0.5) object.model = pick(['offline-chat', 'offline-embed', 'offline-rerank', 'nope']);
      if (next() < 0.5)
        object.messages = [{ role: pick(['user', 'system', 'tool', 'x']), content: pick(values) }];
      return { text: JSON.stringify(object), type: 'application/json' };
    }
    if (kind < 0.7)
      return { text: pick(['{', '[]', 'null', '"x"', '{"a":', '\u0000']), type: 'application/json' };
    if (kind < 0.8)
      return {
        text: `--zz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n${pick(['x', ''])}`,
        type: pick([
          'multipart/form-data; boundary=zz',
          'multipart/form-data',
          'multipart/form-data; boundary=',
        ]),
      };
    if (kind < 0.9) return { text: new Uint8Array([0xff, 0xfe, 0x80, 0xc3, 0x28]), type: 'text/plain' };
    return { text: 'a=1&b=2', type: pick(['application/x-www-form-urlencoded', 'application/xml', '']) };
  };

  let sent = 0;
  let fiveHundreds = 0;
  let unenveloped = 0;
  let networkErrors = 0;
  const samples: string[] = [];
  const started = performance.now();
  const one = async () => {
    const path = pick(routes).replaceAll('{id}', () => pick(ids));
    const query =
      next() < 0.4
        ? `?api_key=${CANARY}&limit=${pick(['-1', '1e9', 'x', '5'])}&cursor=${pick(['%ff', 'x', ''])}`
        : '';
    const method = pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']);
    const headers: Record<string, string> = {
      'x-api-key': next() < 0.9 ? ADMIN_KEY : pick(['', 'nope', CANARY]),
    };
    if (next() < 0.1) headers['idempotency-key'] = pick(['k', 'x'.repeat(300), '\u00e9']);
    if (next() < 0.1) headers.authorization = `Bearer ${CANARY}`;
    const payload = method === 'GET' || method === 'HEAD' ? null : body();
    if (payload && payload.type) headers['content-type'] = payload.type;
    sent++;
    try {
      const response = await fetch(`${api.base}${path}${query}`, {
        method,
        headers,
        body: payload ? payload.text : undefined,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      if (response.status >= 500) {
        fiveHundreds++;
        if (samples.length < 10) samples.push(`${method} ${path} → ${response.status} ${text.slice(0, 120)}`);
      }
      if (response.status >= 400 && method !== 'HEAD') {
        let enveloped = false;
        try {
          const error = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }).error;
          enveloped = typeof error?.code === 'string' && typeof error.message === 'string';
        } catch {
          enveloped = false;
        }
        if (!enveloped) {
          unenveloped++;
          if (samples.length < 10)
            samples.push(`unenveloped ${method} ${path} → ${response.status} ${text.slice(0, 120)}`);
        }
      }
    } catch {
      networkErrors++;
    }
  };
  // A few raw malformed requests on sockets too.
  const rawAnswers: string[] = [];
  for (const raw of [
    'GET / HTTP/1.1\r\nhost x\r\n\r\n',
    `GET /?${'a=1&'.repeat(5000)} HTTP/1.1\r\nhost: x\r\n\r\n`,
    'BREW /coffee HTCPCP/1.0\r\n\r\n',
  ]) {
    rawAnswers.push(
      await new Promise<string>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port: api.api.port });
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString()));
        socket.on('close', () =>
          resolve(
            answer.split('\r\n')[0] + ' ' + (answer.includes('"error"') ? 'enveloped' : 'NOT enveloped'),
          ),
        );
        socket.on('error', () => undefined);
        socket.write(raw);
      }),
    );
  }
  const concurrency = 8;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < total && performance.now() - started < 15 * 60_000) await one();
    }),
  );
  const alive = (await fetch(`${api.base}/health`)).status;
  log(`fuzz: ${sent} requests in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  await api.stop();
  report(`fuzzing: ${sent} mutated requests over ${routes.length} routes`, {
    '5xx answers': fiveHundreds,
    'error answers without the envelope': unenveloped,
    'network errors': networkErrors,
    'raw malformed HTTP': rawAnswers,
    '/health after': alive,
    'canary key (sent in query strings and headers) in the log': canaryLogged,
    ...(samples.length ? { samples } : {}),
  });
}
