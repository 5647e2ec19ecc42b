// No input produces a 5xx: a sweep of malformed bodies, content types, methods and ids over every route family.
import { connect } from 'node:net';
import OpenAI from 'openai';
import { ADMIN_KEY, client, CORE, startTestApi, type TestApi } from './support/api.js';

/** Sends raw bytes on a new connection (optionally a piece at a time) and returns everything the server answered. */
const rawExchange = (port: number, pieces: readonly string[], pauseMs = 0): Promise<string> =>
  new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('error', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    void (async () => {
      for (const piece of pieces) {
        if (socket.destroyed) return;
        socket.write(piece);
        if (pauseMs) await new Promise((wait) => setTimeout(wait, pauseMs));
      }
    })();
  });

/** Status and body of a raw HTTP answer. */
const parsed = (answer: string) => {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return { status, body: body ? (JSON.parse(body) as { error: { code: string; type: string } }) : null };
};

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
/** Bodies aimed at a conversation turn (POST /llm/{agentId}/conversation). */
const CONVERSATION_BODIES = [
  '{"message":{"content":"x","attachments":[{"name":"a","mimeType":"x","dataBase64":"!!"}]}}',
  `{"message":"${'m'.repeat(300_000)}"}`,
  '{"message":"x","visibility":"secret"}',
  '{"message":"x","conversationId":{"$gt":""}}',
];
const TYPES = ['application/json', 'text/plain', 'application/x-www-form-urlencoded'];

describe('hostile input (e2e)', () => {
  let api: TestApi;
  beforeAll(async () => {
    // The shortest request timeout allowed, so a slow sender is cut within the test.
    api = await startTestApi({ REQUEST_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    await api.close();
  });

  // Thousands of sequential requests over every route: the budget is for a loaded 2-core machine, not a timing claim.
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
    // The conversation routes, on a real Agent (and one of its conversations) and on an Agent that does not exist:
    // every answer a 4xx with the envelope.
    const conversation = await fetch(`${api.url}${llm}/conversation`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
    }).then((r) => r.json() as Promise<{ conversationId: string }>);
    expect(conversation.conversationId).toEqual(expect.any(String));
    const conversationStatuses = new Set<number>();
    for (const [agentId, conversationId] of [
      [agent.id, conversation.conversationId],
      ['agt_missing', 'conv_missing'],
    ]) {
      const base = `/api/v1/core/llm/${agentId}/conversation`;
      for (const [method, path, body] of [
        ...[...CONVERSATION_BODIES, ...BODIES].map((body) => ['POST', base, body] as const),
        ['GET', `${base}?archived=maybe&limit=0`, undefined],
        ['GET', `${base}/%00/messages?cursor=%ff`, undefined],
        ['GET', `${base}/${conversationId}/messages?cursor=%ff`, undefined],
        ['PATCH', `${base}/${conversationId}`, '{}'],
        ['PATCH', `${base}/${conversationId}`, '{"visibility":"incognito"}'],
        ['DELETE', `${base}/${conversationId}/messages/${'x'.repeat(3000)}`, undefined],
      ] as const) {
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
        conversationStatuses.add(response.status);
        if (response.status < 400 || response.status >= 500 || !text.startsWith('{"error":{'))
          problems.push(
            `${method} ${path.slice(0, 80)} ${String(body).slice(0, 60)} → ${response.status} ${text.slice(0, 160)}`,
          );
      }
    }
    // Validation answers on the real Agent, "not found" on the missing one (nothing got past as a bare 4xx).
    expect([...conversationStatuses].sort()).toEqual(expect.arrayContaining([400, 404]));
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
    // The memory routes, on a real memory and proposal (of an Agent sharing memories) and on ids that do not exist:
    // every answer a 4xx with the envelope.
    const sharing = await fetch(`${api.url}/api/v1/core/agents`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ spaceId: space.id, name: 'Sharing', sharedMemoryEnabled: true }),
    }).then((r) => r.json() as Promise<{ id: string }>);
    const memory = await fetch(`${api.url}/api/v1/core/memory/${sharing.id}/memories`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'The user lives in Lyon.' }),
    }).then((r) => r.json() as Promise<{ id: string }>);
    expect(memory.id).toEqual(expect.any(String));
    const proposed = await fetch(`${api.url}/api/v1/core/llm/${sharing.id}/conversation`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Our team deploys on Fridays.' }),
    }).then((r) => r.json() as Promise<{ message: { memory: { proposals: { id: string }[] } } }>);
    const proposalId = proposed.message.memory.proposals[0]!.id;
    const MEMORY_BODIES = [
      '{}',
      '{"text":""}',
      '{"text":"   "}',
      '{"text":123}',
      '{"text":["a"]}',
      '{"text":{"$gt":""}}',
      '{"text":"x","bucket":"team"}',
      '{"text":"x","owner":"usr_other"}',
      `{"text":"${'t'.repeat(300_000)}"}`,
      '{"version":0}',
      '{"version":"x"}',
      '{"version":1.5}',
      '{"version":-1}',
      '{"version":1e309}',
      '{"version":99}',
      '{"answer":"maybe"}',
      '{"answer":null}',
      '{"answer":["confirm"]}',
    ];
    const memoryStatuses = new Set<number>();
    for (const [agentId, memoryId, proposal] of [
      [sharing.id, memory.id, proposalId],
      [sharing.id, 'mem_missing', 'prop_missing'],
      ['agt_missing', 'mem_missing', 'prop_missing'],
    ]) {
      const base = `/api/v1/core/memory/${agentId}`;
      for (const [method, path, body] of [
        ...[...MEMORY_BODIES, ...BODIES].flatMap((body) => [
          ['POST', `${base}/memories`, body] as const,
          ['PATCH', `${base}/memories/${memoryId}`, body] as const,
          ['POST', `${base}/memories/${memoryId}/rollback`, body] as const,
          ['POST', `${base}/proposals/${proposal}`, body] as const,
        ]),
        ['GET', `${base}/memories?bucket=nope`, undefined],
        ['GET', `${base}/memories?bucket=`, undefined],
        ['DELETE', `${base}/memories?bucket=nope`, undefined],
        ['DELETE', `${base}/memories?bucket=all`, undefined],
        ['GET', `${base}/proposals?state=nope`, undefined],
        ['GET', `${base}/memories/mem_missing/versions`, undefined],
        ['GET', `${base}/memories/mem_missing/answers`, undefined],
        ['GET', `${base}/memories/%00/versions`, undefined],
        ['DELETE', `${base}/memories/mem_missing`, undefined],
        ['DELETE', `${base}/memories/${'x'.repeat(3000)}`, undefined],
        ['PATCH', `${base}/memories/mem_missing`, '{"text":"The user plays chess."}'],
        ['POST', `${base}/memories/mem_missing/rollback`, '{"version":1}'],
        ['POST', `${base}/proposals/prop_missing`, '{"answer":"confirm"}'],
      ] as const) {
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
        memoryStatuses.add(response.status);
        if (response.status < 400 || response.status >= 500 || !text.startsWith('{"error":{'))
          problems.push(
            `${method} ${path.slice(0, 80)} ${String(body).slice(0, 60)} → ${response.status} ${text.slice(0, 160)}`,
          );
      }
    }
    expect([...memoryStatuses].sort()).toEqual(expect.arrayContaining([400, 404]));
    // The Skill routes, on a real (published, draft-free, unlisted) Skill and on ids that do not exist: JSON bodies
    // and multipart uploads, none of them valid for what it targets. Every answer a 4xx with the envelope.
    const skill = await fetch(`${api.url}/api/v1/core/skills`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({
        spaceId: space.id,
        name: 'hostile-target',
        description: 'A target.',
        instructions: 'Stand still.',
        publish: true,
      }),
    }).then((r) => r.json() as Promise<{ id: string; activeVersionId: string }>);
    expect(skill.activeVersionId).toEqual(expect.any(String));
    const valid = (fields: Record<string, unknown>) =>
      JSON.stringify({ name: 'fine-name', description: 'Fine.', instructions: 'Fine.', ...fields });
    const SKILL_BODIES = [
      '{}',
      valid({ name: 'Bad Name', spaceId: space.id }),
      valid({ name: '-bad-', spaceId: space.id }),
      valid({ name: 'a'.repeat(65), spaceId: space.id }),
      valid({ description: '   ', spaceId: space.id }),
      valid({ description: 'd'.repeat(2000), spaceId: space.id }),
      valid({ instructions: '', spaceId: space.id }),
      valid({ instructions: 'i'.repeat(200_000), spaceId: space.id }),
      valid({ spaceId: 'spc_missing' }),
      valid({ agentId: 'agt_missing' }),
      valid({ spaceId: space.id, agentId: agent.id }),
      valid({ spaceId: space.id, publish: 'yes' }),
      valid({ spaceId: { $gt: '' } }),
      valid({ spaceId: 'x'.repeat(3000) }),
      valid({ spaceId: space.id, files: [{ path: '../x', content: 'x' }] }),
      '{"name":"UPPER"}',
      '{"description":""}',
      '{"instructions":123}',
      '{"versionId":""}',
      '{"versionId":123}',
      '{"versionId":"skv_missing"}',
      '{"versionId":{"$gt":""}}',
      `{"versionId":"${'v'.repeat(3000)}"}`,
      '{"spaceId":"spc_missing"}',
      '{"agentId":"agt_missing"}',
      `{"spaceId":"${space.id}","agentId":"${agent.id}"}`,
      '{"spaceId":123}',
    ];
    const S = '/api/v1/core/skills';
    const long = 'x'.repeat(3000);
    const skillStatuses = new Set<number>();
    const check = (label: string, status: number, text: string) => {
      count += 1;
      skillStatuses.add(status);
      if (status < 400 || status >= 500 || !text.startsWith('{"error":{'))
        problems.push(`${label.slice(0, 120)} → ${status} ${text.slice(0, 160)}`);
    };
    for (const skillId of [skill.id, 'skl_missing', long]) {
      for (const [method, path, body] of [
        ...[...SKILL_BODIES, ...BODIES].flatMap((body) => [
          ['POST', S, body] as const,
          ['PUT', `${S}/${skillId}`, body] as const,
          ['PUT', `${S}/${skillId}/active-version`, body] as const,
          ['POST', `/api/v1/core/marketplace/skills/${skillId}/install`, body] as const,
          ['POST', `${S}/${skillId}/publish`, body] as const,
        ]),
        ['GET', `${S}/${skillId}/versions/skv_missing`, undefined],
        ['GET', `${S}/${skillId}/versions/${long}`, undefined],
        ['GET', `${S}/${skillId}/versions/%00`, undefined],
        ['DELETE', `/api/v1/core/marketplace/skills/${skillId}`, undefined],
        ['POST', `/api/v1/core/marketplace/skills/${skillId}/restore`, undefined],
        ['GET', `/api/v1/core/marketplace/skills?archived=${skillId}`, undefined],
        ...(skillId === skill.id
          ? []
          : ([
              ['GET', `${S}/${skillId}`, undefined],
              ['DELETE', `${S}/${skillId}`, undefined],
              ['POST', `${S}/${skillId}/marketplace`, undefined],
            ] as const)),
        ['GET', `${S}?spaceId=`, undefined],
        ['GET', `${S}?agentId=`, undefined],
        ['GET', `${S}?spaceId=spc_missing`, undefined],
        ['GET', `${S}?agentId=agt_missing`, undefined],
        ['GET', `${S}?spaceId=${long}`, undefined],
        ['GET', `${S}/%00`, undefined],
      ] as const) {
        const response = await fetch(`${api.url}${path}`, {
          method,
          headers: {
            'x-api-key': ADMIN_KEY,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body,
        });
        check(
          `${method} ${path.slice(0, 80)} ${String(body).slice(0, 60)}`,
          response.status,
          await response.text(),
        );
      }
      // Uploads: malformed multipart, then well-formed multipart carrying no valid Skill file or fields.
      for (const [method, path] of [
        ['POST', `${S}/upload`],
        ['PUT', `${S}/${skillId}/upload`],
      ] as const) {
        for (const [type, body] of [
          [
            'multipart/form-data',
            '--zzz\r\nContent-Disposition: form-data; name="file"; filename="a.md"\r\n\r\nhello',
          ],
          [
            'multipart/form-data; boundary=zzz',
            '--zzz\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\nPK',
          ],
          ['multipart/form-data; boundary=zzz', '{"name":"a.md"}'],
          ['multipart/form-data; boundary=zzz', '--zzz\r\nContent-Disposition: form-data; name="file"'],
          ['application/json', valid({ spaceId: space.id })],
          ['text/plain', 'SKILL.md'],
        ] as const) {
          const response = await fetch(`${api.url}${path}`, {
            method,
            headers: { 'x-api-key': ADMIN_KEY, 'content-type': type },
            body,
          });
          check(
            `${method} ${path.slice(0, 80)} [${type}] ${body.slice(0, 40)}`,
            response.status,
            await response.text(),
          );
        }
        const md = (front: string) => `---\n${front}\n---\n\nDo it.\n`;
        const zipLike = new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...new Uint8Array(200).fill(7)]);
        for (const [fields, part, file, name] of [
          [{ spaceId: space.id }, 'file', null, ''],
          [{ spaceId: space.id }, 'file', '', 'empty.md'],
          [{ spaceId: space.id }, 'other', md('name: fine-name\ndescription: Fine.'), 'SKILL.md'],
          [{ spaceId: space.id }, 'file', 'plain text', 'notes.txt'],
          [{ spaceId: space.id }, 'file', 'no frontmatter', 'SKILL.md'],
          [{ spaceId: space.id }, 'file', md('name: [a, b]\ndescription: Fine.'), 'SKILL.md'],
          [{ spaceId: space.id }, 'file', md('name: fine-name\ndescription: Fine.\nx: &a [*a]'), 'SKILL.md'],
          [{ spaceId: space.id }, 'file', md('name: fine-name'), 'SKILL.md'],
          [{ spaceId: space.id }, 'file', zipLike, 'bundle.zip'],
          [{ spaceId: space.id }, 'file', new Uint8Array([0xff, 0xfe, 0x00, 0x2d]), 'SKILL.md'],
          [{ spaceId: space.id }, 'file', 'PK', 'bundle.zip'],
          [{ spaceId: space.id, publish: 'maybe' }, 'file', 'x', 'notes.txt'],
          [{ spaceId: space.id, agentId: agent.id }, 'file', 'x', 'notes.txt'],
          [{ spaceId: space.id, extra: 'x' }, 'file', 'x', 'notes.txt'],
          [{}, 'file', 'x', 'notes.txt'],
          [{ spaceId: 'spc_missing' }, 'file', 'x', 'notes.txt'],
        ] as const) {
          const form = new FormData();
          for (const [field, value] of Object.entries(fields)) form.append(field, value);
          if (file !== null)
            form.append(part, new Blob([typeof file === 'string' ? file : new Uint8Array(file)]), name);
          const response = await fetch(`${api.url}${path}`, {
            method,
            headers: { 'x-api-key': ADMIN_KEY },
            body: form,
          });
          check(
            `${method} ${path.slice(0, 80)} multipart ${JSON.stringify(fields).slice(0, 60)} ${name}`,
            response.status,
            await response.text(),
          );
        }
      }
    }
    expect([...skillStatuses].sort()).toEqual(expect.arrayContaining([400, 404, 409]));
    // The target is as it was: one published version, no draft.
    const target = await client(api.url).get<{ versions: unknown[]; draftVersionId: string | null }>(
      `${S}/${skill.id}`,
    );
    expect([target.status, target.body.versions.length, target.body.draftVersionId]).toEqual([200, 1, null]);
    for (const query of ['?from=2026-13-01', '?from=x&to=y', `?from=${'9'.repeat(500)}`]) {
      const response = await fetch(`${api.url}${llm}/usage${query}`, { headers: { 'x-api-key': ADMIN_KEY } });
      count += 1;
      if (response.status !== 400) problems.push(`GET usage${query} → ${response.status}`);
    }
    expect(problems).toEqual([]);
    expect(count).toBeGreaterThan(1000);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await fetch(`${api.url}/health/live`)).status).toBe(200);
  }, 180_000);

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

  const port = () => Number(new URL(api.url).port);

  it('answers malformed multipart bodies with 400 invalid_multipart, never a 500', async () => {
    const { body: agents } = await client(api.url).get<{ data: { id: string }[] }>(`${CORE}/agents?limit=1`);
    const url = `${api.url}${CORE}/knowledge/${agents.data[0]!.id}/documents`;
    const cases: [string, string][] = [
      [
        'multipart/form-data',
        '--zzz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello',
      ],
      [
        'multipart/form-data; boundary=zzz',
        '--zzz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhel',
      ],
      ['multipart/form-data; boundary=zzz', '{"name":"a.txt","text":"hello"}'],
      ['multipart/form-data; boundary=zzz', '--zzz\r\nContent-Disposition: form-data; name="file"'],
    ];
    for (const [type, body] of cases) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'x-api-key': ADMIN_KEY, 'content-type': type },
        body,
      });
      const answer = (await response.json()) as { error: { code: string; type: string } };
      expect([response.status, answer.error.code]).toEqual([
        400,
        expect.stringMatching(/^invalid_multipart|missing_file$/),
      ]);
    }
  });

  it('envelopes what the HTTP parser refuses: headers over 16 KB, 5,000 query parameters, malformed requests', async () => {
    const huge = parsed(
      await rawExchange(port(), [`GET /health HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`]),
    );
    expect([huge.status, huge.body?.error.code]).toEqual([431, 'headers_too_large']);
    const query = Array.from({ length: 5000 }, (_, i) => `p${i}=${i}`).join('&');
    const many = parsed(
      await rawExchange(port(), [`GET /api/v1/core/spaces?${query} HTTP/1.1\r\nhost: x\r\n\r\n`]),
    );
    expect([many.status, many.body?.error.code]).toEqual([431, 'headers_too_large']);
    const garbage = parsed(await rawExchange(port(), ['GET / HTTP/1.1\r\nhost x\r\n\r\n']));
    expect([garbage.status, garbage.body?.error.type]).toEqual([400, 'invalid_request_error']);
    // HTTP/1.1 without Host: Node refuses it on its own (a bare 400, no body) unless the server routes it here.
    const hostless = await rawExchange(port(), ['GET /health HTTP/1.1\r\n\r\n']);
    expect(parsed(hostless)).toEqual({
      status: 400,
      body: {
        error: {
          type: 'invalid_request_error',
          code: 'missing_host',
          message: 'an HTTP/1.1 request must carry a Host header',
        },
      },
    });
    expect(hostless.toLowerCase()).toContain('connection: close');
    // HTTP/1.0 needs no Host: still answered.
    expect(parsed(await rawExchange(port(), ['GET /health/live HTTP/1.0\r\n\r\n'])).status).toBe(200);
  });

  it('cuts a client that sends its body too slowly (408, connection closed)', async () => {
    const body = '{"name":"slow"}';
    const head = `POST ${CORE}/spaces HTTP/1.1\r\nhost: x\r\nx-api-key: ${ADMIN_KEY}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
    // One byte every 150 ms: the whole body would take over 2 s, the limit is 1 s. The exchange ends because the
    // server closes the connection, not because the client finished.
    const answer = parsed(await rawExchange(port(), [head, ...body.split('')], 150));
    expect([answer.status, answer.body?.error.code]).toEqual([408, 'request_timeout']);
  });

  it('never logs a query string (a key sent as ?api_key= stays out of the log)', async () => {
    const secret = 'sk-query-canary-0123456789';
    await fetch(`${api.url}${CORE}/spaces/%00?api_key=${secret}`, { headers: { 'x-api-key': ADMIN_KEY } });
    await fetch(`${api.url}${CORE}/nowhere?api_key=${secret}`);
    expect(api.logs()).not.toContain(secret);
  });

  it("names both ways to send a key on the compatible API's 401, and takes token arrays as embeddings input", async () => {
    const missing = await fetch(`${api.url}/api/compat/v1/models`);
    const text = JSON.stringify(await missing.json());
    expect(missing.status).toBe(401);
    expect(text).toContain('Bearer');
    const sdk = new OpenAI({ baseURL: `${api.url}/api/compat/v1`, apiKey: ADMIN_KEY, maxRetries: 0 });
    // 15339, 1917 are "hello", " world" in cl100k_base, which tiktoken (and so LangChain) uses for unknown models.
    const [fromTokens, fromText] = await Promise.all([
      sdk.embeddings.create({ model: 'offline-embed', input: [[15339, 1917]], encoding_format: 'float' }),
      sdk.embeddings.create({ model: 'offline-embed', input: 'hello world', encoding_format: 'float' }),
    ]);
    expect(fromTokens.data[0]!.embedding).toEqual(fromText.data[0]!.embedding);
    const flat = await sdk.embeddings.create({
      model: 'offline-embed',
      input: [15339, 1917],
      encoding_format: 'float',
    });
    expect(flat.data).toHaveLength(1);
    const bad = await client(api.url).post<{ error: { code: string; param: string } }>(
      '/api/compat/v1/embeddings',
      {
        model: 'offline-embed',
        input: [[15339, -1]],
      },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toMatch(/^input/);
  });
});

describe('hostile input: an upload over the limit (e2e)', () => {
  // The default request timeout: 26 MB sent to an api in this same process takes more than the 1 s the suite above
  // allows a slow sender on a loaded 2-core machine (it answered 408 there once), and the size is the point here.
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api.close();
  });

  it('answers an uploaded file over the limit like an oversized body: 413 body_too_large', async () => {
    const { body: agents } = await client(api.url).get<{ data: { id: string }[] }>(`${CORE}/agents?limit=1`);
    const url = `${api.url}${CORE}/knowledge/${agents.data[0]!.id}/documents`;
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(26 * 1024 * 1024).fill(0x61)]), 'big.txt');
    const big = await fetch(url, { method: 'POST', headers: { 'x-api-key': ADMIN_KEY }, body: form });
    expect([big.status, ((await big.json()) as { error: { code: string } }).error.code]).toEqual([
      413,
      'body_too_large',
    ]);
  });
});
