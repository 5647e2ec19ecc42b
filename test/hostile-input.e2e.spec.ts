// No input produces a 5xx: a sweep of malformed bodies, content types, methods and ids over every route family.
import { ADMIN_KEY, startTestApi, type TestApi } from './support/api.js';

const BODIES = [
  '',
  '{',
  '[]',
  'null',
  '1',
  '"x"',
  '{"name":null}',
  '{"name":{"$gt":""}}',
  `{"name":"${'a'.repeat(5000)}"}`,
  '{"__proto__":{"polluted":1},"name":"p"}',
  '{"spaceId":["a"],"name":"x"}',
  '{"name":"x","topK":1e309}',
  '{"name":"\\u0000"}',
];
const PATHS = [
  '/api/v1/core/spaces',
  '/api/v1/core/agents',
  '/api/v1/core/api-keys',
  '/api/v1/core/spaces/%00',
  `/api/v1/core/agents/${'x'.repeat(3000)}`,
  '/api/v1/core/agents/..%2f..%2f/prompt',
  '/api/v1/core/spaces?limit=-1&cursor=%ff',
  '/api/v1/core/agents?spaceId=&limit=1e3',
];
const MODEL_PATHS = [
  '/api/compat/v1/chat/completions',
  '/api/compat/v1/embeddings',
  '/api/compat/v1/rerank',
  '/api/compat/v1/models',
];
/** Bodies aimed at the model routes: almost valid, with one field wrong in a way parsers and providers dislike. */
const MODEL_BODIES = [
  '{"model":"offline-chat","messages":"hi"}',
  '{"model":"offline-chat","messages":[{"role":"user","content":{"$gt":1}}]}',
  '{"model":"offline-chat","messages":[{"role":"user"}]}',
  '{"model":"offline-chat","messages":[{"role":"user","content":[{"type":"image_url"}]}]}',
  '{"model":"offline-chat","messages":[{"role":"tool","content":"x"}],"tools":[{"type":"function"}]}',
  '{"model":"offline-chat","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"a":{"$ref":"#/nope"}}}}}]}',
  '{"model":"offline-chat","messages":[{"role":"user","content":"x"}],"tool_choice":{"type":"function","function":{"name":"missing"}}}',
  '{"model":"offline-chat","messages":[{"role":"user","content":"x"}],"stream":"yes"}',
  '{"model":"offline-chat","messages":[{"role":"user","content":"x"}],"max_tokens":-1}',
  '{"model":"offline-chat","messages":[{"role":"user","content":"x"}],"max_completion_tokens":1e309}',
  '{"model":"offline-chat","messages":[{"role":"user","content":"x"}],"stop":[1,2]}',
  '{"model":"offline-chat","messages":[{"role":"user","content":"x"}],"stream_options":{"include_usage":"x"}}',
  `{"model":"${'m'.repeat(10000)}","messages":[{"role":"user","content":"x"}]}`,
  '{"model":"offline-embed","input":[1,2,3]}',
  '{"model":"offline-embed","input":[],"dimensions":0}',
  '{"model":"offline-embed","input":"x","dimensions":100000}',
  '{"model":"offline-embed","input":"x","encoding_format":"hex"}',
  '{"model":"offline-rerank","query":"","input":["a"]}',
  '{"model":"offline-rerank","query":"q","input":[null]}',
  '{"model":"offline-rerank","query":"q","input":["a"],"top_k":0}',
  `{"model":"offline-chat","messages":${'['.repeat(2000)}${']'.repeat(2000)}}`,
];
/** Bodies aimed at the core LLM endpoints of one Agent. */
const LLM_BODIES = [
  '{"messages":[{"role":"user","content":"x"}],"schema":{"type":"object","properties":{"a":{"type":"string","pattern":"^(a|a)*$"}}}}',
  '{"messages":[{"role":"user","content":"x"}],"schema":{"$ref":"#/definitions/loop","definitions":{"loop":{"$ref":"#/definitions/loop"}}}}',
  '{"messages":[{"role":"user","content":"x"}],"schema":{"type":"nonsense"}}',
  '{"messages":[{"role":"user","content":"x"}],"schema":[]}',
  `{"messages":[{"role":"user","content":"x"}],"schema":${'{"items":'.repeat(200)}{}${'}'.repeat(200)}}`,
  '{"messages":[{"role":"system","content":"x"}]}',
  '{"messages":[{"role":"user","content":[{"type":"image_url"}]}]}',
  '{"messages":[{"role":"user","content":"x"}],"conversationId":"../../etc"}',
  '{"messages":[{"role":"user","content":"x"}],"maxTokens":-5}',
  '{"prompt":"x","aspectRatio":"2:1","resolution":"1K"}',
  '{"prompt":"x","aspectRatio":"1:1","resolution":"8K"}',
  '{"prompt":"x","aspectRatio":"1:1","resolution":"1K","mask":"data:image/png;base64,!!!"}',
  '{"prompt":"x","aspectRatio":"1:1","resolution":"1K","mask":"data:image/png;base64,iVBORw0KGgo="}',
  '{"prompt":"","aspectRatio":"1:1","resolution":"1K","model":"offline-chat"}',
];
const TYPES = ['application/json', 'text/plain', 'application/x-www-form-urlencoded'];

describe('hostile input (e2e)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api.close();
  });

  it('answers every malformed request with a 4xx and the error envelope, and stays up', async () => {
    const problems: string[] = [];
    let count = 0;
    for (const path of PATHS) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        const variants =
          method === 'GET'
            ? [[undefined, undefined]]
            : BODIES.flatMap((body) => TYPES.map((type) => [body, type]));
        for (const [body, type] of variants) {
          const response = await fetch(`${api.url}${path}`, {
            method,
            headers: { 'x-api-key': ADMIN_KEY, ...(type ? { 'content-type': type } : {}) },
            body,
          });
          const text = await response.text();
          count += 1;
          if (response.status >= 500 || (response.status >= 400 && !text.startsWith('{"error":{')))
            problems.push(
              `${method} ${path.slice(0, 50)} [${type}] ${String(body).slice(0, 30)} → ${response.status} ${text.slice(0, 120)}`,
            );
        }
      }
    }
    for (const path of MODEL_PATHS)
      for (const body of [...MODEL_BODIES, ...BODIES])
        for (const auth of [{ 'x-api-key': ADMIN_KEY }, { authorization: `Bearer ${ADMIN_KEY}` }]) {
          const response = await fetch(`${api.url}${path}`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body,
          });
          const text = await response.text();
          count += 1;
          if (response.status >= 500 || (response.status >= 400 && !text.startsWith('{"error":{')))
            problems.push(`POST ${path} ${body.slice(0, 60)} → ${response.status} ${text.slice(0, 160)}`);
        }
    const space = await fetch(`${api.url}/api/v1/core/spaces`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Hostile' }),
    }).then((r) => r.json() as Promise<{ id: string }>);
    const agent = await fetch(`${api.url}/api/v1/core/agents`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ spaceId: space.id, name: 'Target' }),
    }).then((r) => r.json() as Promise<{ id: string }>);
    const llm = `/api/v1/core/llm/${agent.id}`;
    for (const path of [`${llm}/generateText`, `${llm}/generateObject`, `${llm}/generateImage`])
      for (const body of [...LLM_BODIES, ...MODEL_BODIES, ...BODIES]) {
        const response = await fetch(`${api.url}${path}`, {
          method: 'POST',
          headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
          body,
        });
        const text = await response.text();
        count += 1;
        if (response.status >= 500 || (response.status >= 400 && !text.startsWith('{"error":{')))
          problems.push(`POST ${path} ${body.slice(0, 60)} → ${response.status} ${text.slice(0, 160)}`);
      }
    const knowledge = `/api/v1/core/knowledge/${agent.id}`;
    const doc = await fetch(`${api.url}${knowledge}/documents`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'target.md', text: '# Target' }),
    }).then((r) => r.json() as Promise<{ id: string }>);
    const KNOWLEDGE_BODIES = [
      '{"name":"x","text":""}',
      '{"name":"","text":"x"}',
      '{"name":"x","text":"x","scope":"planet"}',
      '{"name":"x","text":"x","tagIds":"t1"}',
      '{"name":"x","text":"x","tagIds":[{"$ne":null}]}',
      '{"name":"x","color":"#zzz"}',
      `{"name":"${'n'.repeat(300)}","text":"x"}`,
      '{"query":"NEAR(a b) AND \\"x\\" OR * ( ^ ","mode":"bm25"}',
      '{"query":"x","limit":0}',
      '{"query":"x","mode":"semantic"}',
      '{"query":"x","tagIds":["tag_missing"]}',
      `{"query":"${'q '.repeat(1500)}"}`,
      '{"action":"explode","documentIds":["a"]}',
      '{"action":"delete","documentIds":[]}',
      '{"documentIds":["../../etc/passwd"]}',
    ];
    for (const [method, path] of [
      ['POST', `${knowledge}/documents`],
      ['PUT', `${knowledge}/documents/${doc.id}`],
      ['POST', `${knowledge}/tags`],
      ['PUT', `${knowledge}/tags/tag_missing`],
      ['POST', `${knowledge}/documents/${doc.id}/tags/%00`],
      ['GET', `${knowledge}/documents?scope=x&status=Done&limit=-1`],
      ['POST', `${knowledge}/search`],
      ['POST', `${knowledge}/documents/bulk`],
      ['POST', `${knowledge}/documents/download`],
    ] as const)
      for (const body of method === 'GET' ? [undefined] : [...KNOWLEDGE_BODIES, ...BODIES]) {
        const response = await fetch(`${api.url}${path}`, {
          method,
          headers: {
            'x-api-key': ADMIN_KEY,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body,
        });
        const text = await response.text();
        count += 1;
        if (response.status >= 500 || (response.status >= 400 && !text.startsWith('{"error":{')))
          problems.push(
            `${method} ${path} ${String(body).slice(0, 60)} → ${response.status} ${text.slice(0, 160)}`,
          );
      }
    for (const query of ['?from=2026-13-01', '?from=x&to=y', `?from=${'9'.repeat(500)}`]) {
      const response = await fetch(`${api.url}${llm}/usage${query}`, { headers: { 'x-api-key': ADMIN_KEY } });
      count += 1;
      if (response.status !== 400) problems.push(`GET usage${query} → ${response.status}`);
    }
    expect(problems).toEqual([]);
    expect(count).toBeGreaterThan(1000);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await fetch(`${api.url}/health/live`)).status).toBe(200);
  });

  it('refuses an oversized body with 413 before reading it all', async () => {
    const response = await fetch(`${api.url}/api/v1/core/spaces`, {
      method: 'POST',
      headers: {
        'x-api-key': ADMIN_KEY,
        'content-type': 'application/json',
        'content-length': String(20 * 1024 * 1024),
      },
      body: '{}'.padEnd(20 * 1024 * 1024, ' '),
    }).catch(() => null);
    // The server may close the connection after answering; either way it must not fail or hang.
    if (response) expect(response.status).toBe(413);
    expect((await fetch(`${api.url}/health/live`)).status).toBe(200);
  });
});
