// Agent conversations end to end over real HTTP: turns grounded in Knowledge (offline and through a fake
// OpenAI-compatible upstream whose received requests the tests inspect), streaming, aborts, usage, ownership,
// visibility, deletions (erasure included, across a rebuild of the read models), compaction, idempotency, the
// cascade of an Agent's deletion and usage limits.
import { MEMORY_EXTRACTION_HEADER } from '#memory';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENT_STORE, type EventStore } from '#event-store';
import { WrongExpectedRevisionError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import {
  startFakeUpstream,
  type FakeUpstream,
  type FakeUpstreamRequest,
} from '#testing/fake-openai-upstream';
import { waitUntil } from '#testing/fixtures';
import { usageStreamId, utcDay, type ModelCall } from '#usage';
import { recordedCalls } from './support/usage-events.js';
import {
  ADMIN_KEY,
  client,
  CORE,
  startTestApi,
  uniqueName,
  type TestApi,
  writeModelsFile,
} from './support/api.js';
import { LLM, newAgent, newSpace, type Json } from './support/scenario.js';
import { projectionsCaughtUp } from './support/waits.js';
import { VOLCANOES } from './support/documents.js';

type Client = ReturnType<typeof client>;
interface ChatMessage {
  role: string;
  content: unknown;
  tool_calls?: unknown[];
}
interface ChatBody {
  model: string;
  messages: ChatMessage[];
  [field: string]: unknown;
}
interface Citation {
  index: number;
  documentId: string;
  documentName: string;
  documentVersion: number;
  contentHash: string;
  sectionPath: string[];
  start: number;
  end: number;
  score: number;
}
interface Turn {
  conversationId: string;
  created: boolean;
  userMessage: { id: string; createdAt: string };
  message: {
    id: string;
    role: 'assistant';
    content: string;
    citations: Citation[];
    model: string;
    status: 'complete' | 'incomplete';
  };
}
interface Message {
  id: string;
  role: 'user' | 'assistant';
  content: string | null;
  citations: Citation[];
  status: 'complete' | 'incomplete';
}
interface Messages {
  data: Message[];
  nextCursor: string | null;
  compaction: { checkpointId: string; throughMessageId: string; throughOffset: number } | null;
}
interface Provenance {
  model: string;
  provider: string;
  sources: Citation[];
  toolCalls: { name: string; arguments: string | null; ok: boolean; sources: number[] }[];
  contextProviders: string[];
}
interface SseEvent {
  event: string;
  data: Json;
}

const K = `${CORE}/knowledge`;

/**
 * Sections about Sicily around the Vesuvius one: more passages naming what the first question asks about than one
 * search returns, so that the Vesuvius passage (naming none of its words) is left for the tool to find.
 */
const SICILY = [
  ['Palermo', 'Palermo is the capital of Sicily, on its northern coast.'],
  ['Catania', 'Catania is a port city of Sicily at the foot of the mountain.'],
  ['Syracuse', 'Syracuse in Sicily was founded by Greek settlers.'],
  ['Agrigento', 'Agrigento in Sicily keeps the Valley of the Temples.'],
  ['Messina', 'Messina faces the mainland across the strait from Sicily.'],
  ['Cannoli', 'Cannoli are pastry tubes filled with ricotta, a sweet of Sicily.'],
  ['Arancini', 'Arancini are fried rice balls eaten all over Sicily.'],
  ['Lemons', 'Lemons and oranges grow in the groves of Sicily.'],
  ['Islands', 'The Aeolian Islands lie off the north coast of Sicily.'],
  ['Climate', 'Sicily has hot dry summers and mild wet winters.'],
  ['Language', 'Sicilian is a language spoken in Sicily besides Italian.'],
  ['Salt', 'Salt pans near Trapani in Sicily dry sea water in the sun.'],
];

const words = (count: number, seed: string): string =>
  Array.from({ length: count }, (_, i) => `${seed}${i}`).join(' ');

const user = (content: string) => ({ role: 'user', content });
const marker = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 12).toUpperCase()}`;

/** Every file under `dir` (recursively) whose bytes hold `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle);
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    let content: Buffer;
    try {
      content = readFileSync(path);
    } catch {
      continue; // removed meanwhile (a rotated journal)
    }
    if (content.includes(bytes)) found.push(path);
  }
  return found;
}

/** Named Server-Sent Events of a body: `event:` then `data:` (JSON). */
function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim().length > 0)
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length) ?? 'message';
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice('data: '.length))
        .join('\n');
      return { event, data: JSON.parse(data) as Json };
    });
}

/** A grounded streamed turn's events, in their order: conversation, retrieval, one delta or more, done. Its deltas. */
const expectGroundedStream = (events: ReturnType<typeof parseSse>) => {
  const deltas = events.filter((event) => event.event === 'delta');
  expect(deltas.length).toBeGreaterThanOrEqual(1);
  expect(events.map((event) => event.event)).toEqual([
    'conversation',
    'retrieval',
    ...deltas.map(() => 'delta'),
    'done',
  ]);
  return deltas;
};

/** The turns' chat requests (memory extraction, which follows a turn on an Agent with memory, is the memory spec's). */
const chatRequests = (upstream: FakeUpstream) =>
  upstream.requests.filter(
    (request) =>
      request.path === '/v1/chat/completions' && !request.rawBody.includes(MEMORY_EXTRACTION_HEADER),
  );
const sent = (request: FakeUpstreamRequest | undefined) => request!.body as ChatBody;
const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part) => String((part as Json).text ?? '')).join(' ')
      : '';
const systemTexts = (request: FakeUpstreamRequest) =>
  sent(request)
    .messages.filter((message) => message.role === 'system')
    .map((message) => textOf(message.content));

describe('Agent conversations (e2e)', () => {
  let api: TestApi;
  let upstream: FakeUpstream;
  let admin: Client;
  let spaceId: string;
  let volcanoes: { id: string; contentHash: string };
  const extraApis: TestApi[] = [];

  const modelsFile = () =>
    writeModelsFile([
      'providers:',
      `  fake: { baseUrl: '${upstream.url}' }`,
      'models:',
      '  - { key: fake-chat, modelId: fake-model, provider: fake, kind: chat, contextWindow: 64000, pricing: { input: 1, output: 2 } }',
    ]);

  const addDocument = async (as: Client, agentId: string, body: Json) => {
    const added = await as.post<{ id: string; contentHash: string }>(`${K}/${agentId}/documents`, body);
    expect(added.status).toBe(201);
    await waitUntil(
      async () => (await as.get(`${K}/${agentId}/documents/${added.body.id}`)).body.status === 'Ready',
      30_000,
    );
    return added.body;
  };

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    api = await startTestApi({ MODELS_FILE: modelsFile() });
    admin = client(api.url);
    spaceId = await newSpace(admin, uniqueName('Conversations'));
    const librarian = await createAgent();
    volcanoes = await addDocument(admin, librarian, {
      name: 'volcanoes.md',
      text: VOLCANOES,
      scope: 'space',
    });
  }, 60_000);
  afterEach(() => upstream.reset());
  afterAll(async () => {
    for (const extra of extraApis) await extra.close().catch(() => undefined);
    await api.close();
    await upstream.close();
    // No request of this suite may have been a server error.
    expect(api.logs()).not.toContain('unhandled error');
    for (const extra of extraApis) expect(extra.logs()).not.toContain('unhandled error');
  });

  function createAgent(settings: Json = {}, as: Client = admin, space = spaceId): Promise<string> {
    return newAgent(as, space, settings);
  }
  const issueKey = async (body: Json) => {
    const reply = await admin.post<{ id: string; key: string }>(`${CORE}/api-keys`, {
      name: uniqueName('key'),
      ...body,
    });
    expect(reply.status).toBe(201);
    return reply.body;
  };
  const converse = (agentId: string, body: Json, as: Client = admin, headers?: Record<string, string>) =>
    as.post<Turn>(`${LLM}/${agentId}/conversation`, body, headers);
  const messagesOf = (agentId: string, conversationId: string, as: Client = admin, query = '') =>
    as.get<Messages>(`${LLM}/${agentId}/conversation/${conversationId}/messages${query}`);
  const listed = async (agentId: string, query = '', as: Client = admin) => {
    const reply = await as.get<{ data: (Json & { id: string })[] }>(`${LLM}/${agentId}/conversation${query}`);
    expect(reply.status).toBe(200);
    return reply.body.data;
  };
  /** A streamed turn through plain fetch: its SSE events. */
  const streamTurn = async (base: string, agentId: string, body: Json, key = ADMIN_KEY) => {
    const response = await fetch(`${base}${LLM}/${agentId}/conversation`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    return parseSse(await response.text());
  };

  it('answers offline from the Knowledge with citations and provenance, and continues the conversation', async () => {
    const agentId = await createAgent();
    const first = await converse(agentId, { message: 'Which volcano is in Sicily?' });
    expect(first.status).toBe(201);
    expect(first.body.created).toBe(true);
    expect(first.body.message).toMatchObject({
      role: 'assistant',
      model: 'offline-chat',
      status: 'complete',
    });
    expect(first.body.message.content).toContain('Etna');
    expect(first.body.message.content).toContain('[1]');
    const citation = first.body.message.citations[0]!;
    expect(citation).toEqual({
      index: 1,
      documentId: volcanoes.id,
      documentName: 'volcanoes.md',
      documentVersion: 1,
      contentHash: volcanoes.contentHash,
      sectionPath: expect.arrayContaining(['Etna']),
      start: expect.any(Number),
      end: expect.any(Number),
      score: expect.any(Number),
    });
    expect(citation.end).toBeGreaterThan(citation.start);
    // The cited range is the Etna passage of the document's text.
    expect(VOLCANOES.slice(citation.start, citation.end)).toContain('Sicily');

    const { conversationId } = first.body;
    const provenance = await admin.get<Provenance>(
      `${LLM}/${agentId}/conversation/${conversationId}/messages/${first.body.message.id}/provenance`,
    );
    expect(provenance.status).toBe(200);
    // Knowledge, then the Skills every Agent has (the DEFAULT ones): their manifest is in the prompt.
    expect(provenance.body).toMatchObject({
      model: 'offline-chat',
      contextProviders: ['knowledge', 'skills'],
    });
    expect(provenance.body.sources).toEqual(
      expect.arrayContaining([expect.objectContaining({ documentId: volcanoes.id, index: 1 })]),
    );

    const second = await converse(agentId, { conversationId, message: 'Which volcano is in Campania?' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ conversationId, created: false });
    expect(second.body.message.content).toContain('Vesuvius');

    const history = await messagesOf(agentId, conversationId);
    expect(history.status).toBe(200);
    expect(history.body.data.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Which volcano is in Sicily?'],
      ['assistant', first.body.message.content],
      ['user', 'Which volcano is in Campania?'],
      ['assistant', second.body.message.content],
    ]);
    expect(history.body.data.map((message) => message.id)).toEqual([
      first.body.userMessage.id,
      first.body.message.id,
      second.body.userMessage.id,
      second.body.message.id,
    ]);
    expect(history.body.data[1]!.citations).toEqual(first.body.message.citations);
    expect(history.body.data[3]!.citations).toEqual(second.body.message.citations);
    expect(history.body.compaction).toBeNull();
  });

  it("assembles the prompt: the Agent's prompt, the sources, the history verbatim, the new message; its sampling", async () => {
    const agentId = await createAgent({ model: 'fake-chat', temperature: 0.4 });
    expect(
      (await admin.put(`${CORE}/agents/${agentId}/prompt`, { systemPrompt: 'You are a volcanologist.' }))
        .status,
    ).toBe(200);
    const first = await converse(agentId, { message: 'Which volcano is in Sicily?' });
    expect(first.status).toBe(201);
    expect(first.body.message.content).toBe('Echo: Which volcano is in Sicily?');
    const second = await converse(agentId, {
      conversationId: first.body.conversationId,
      message: 'How tall is Etna?',
    });
    expect(second.status).toBe(200);

    const body = sent(chatRequests(upstream).at(-1));
    expect(body.model).toBe('fake-model');
    expect(body.messages).toHaveLength(6);
    expect(body.messages[0]).toEqual({ role: 'system', content: 'You are a volcanologist.' });
    expect(body.messages[1]!.role).toBe('system');
    const sources = textOf(body.messages[1]!.content);
    expect(sources.startsWith('Sources retrieved for this turn:')).toBe(true);
    expect(sources).toContain('Mount Etna is an active stratovolcano on the east coast of Sicily.');
    // The Skills manifest (the DEFAULT Skills every Agent has) follows the sources.
    expect(body.messages[2]!.role).toBe('system');
    expect(textOf(body.messages[2]!.content)).toMatch(/^Skills available to you/);
    expect(body.messages.slice(3)).toEqual([
      user('Which volcano is in Sicily?'),
      { role: 'assistant', content: 'Echo: Which volcano is in Sicily?' },
      user('How tall is Etna?'),
    ]);
    expect(body.temperature).toBe(0.4);
    expect(body).not.toHaveProperty('top_p');
    expect(body).not.toHaveProperty('top_k');
  });

  it('runs the search_knowledge tool loop: new sources are citable, markers pointing at nothing are dropped', async () => {
    // Its own Space, with a document of more passages than one search returns.
    const space = await admin.post(`${CORE}/spaces`, { name: uniqueName('Tools') });
    const agentId = await createAgent({ model: 'fake-chat' }, admin, space.body.id as string);
    const text = [
      '# Almanac',
      '',
      ...SICILY.flatMap(([title, line]) => [`## ${title}`, '', line!, '']),
      '## Etna',
      '',
      'Mount Etna is an active stratovolcano on the east coast of Sicily.',
      '',
      '## Vesuvius',
      '',
      'Mount Vesuvius stands near Naples, Campania; its eruption buried Pompeii.',
      '',
    ].join('\n');
    const almanac = await addDocument(admin, agentId, { name: 'almanac.md', text });

    const toolResult = (request: FakeUpstreamRequest) =>
      sent(request).messages.find((message) => message.role === 'tool');
    const vesuviusIndex = (request: FakeUpstreamRequest): number => {
      const result = textOf(toolResult(request)?.content);
      return Number(/^\[(\d+)\] [^\n]*Vesuvius/m.exec(result)?.[1] ?? 0);
    };
    upstream.set({
      toolCall: (request) =>
        toolResult(request) ? undefined : { name: 'search_knowledge', arguments: { query: 'Vesuvius' } },
      reply: (request) => `Vesuvius is in Campania [${vesuviusIndex(request)}]. See also [99].`,
    });
    const reply = await converse(agentId, { message: 'Which volcano is in Sicily?' });
    expect(reply.status).toBe(201);

    const [first, second] = chatRequests(upstream);
    expect(chatRequests(upstream)).toHaveLength(2);
    // The first call offers the tool and carries the turn's sources; the Vesuvius passage is not among them.
    expect((sent(first).tools as { function: { name: string } }[]).map((tool) => tool.function.name)).toEqual(
      ['search_knowledge', 'load_skill', 'read_skill_file'],
    );
    const initial = systemTexts(first!).find((section) => section.startsWith('Sources retrieved'))!;
    expect(initial).toContain('Sicily');
    expect(initial).not.toContain('Campania');
    // The second call carries the call and its result.
    const messages = sent(second).messages;
    const call = messages.find((message) => message.role === 'assistant' && message.tool_calls);
    expect(call?.tool_calls).toEqual([
      expect.objectContaining({
        type: 'function',
        function: { name: 'search_knowledge', arguments: '{"query":"Vesuvius"}' },
      }),
    ]);
    const result = textOf(toolResult(second!)!.content);
    expect(result.startsWith('Sources found by search_knowledge:')).toBe(true);
    expect(result).toContain('Mount Vesuvius stands near Naples, Campania');

    const index = vesuviusIndex(second!);
    expect(index).toBeGreaterThan(1);
    expect(reply.body.message.content).toBe(`Vesuvius is in Campania [${index}]. See also.`);
    expect(reply.body.message.content).not.toContain('[99]');
    expect(reply.body.message.citations).toEqual([
      expect.objectContaining({
        index,
        documentId: almanac.id,
        sectionPath: expect.arrayContaining(['Vesuvius']),
      }),
    ]);

    const provenance = await admin.get<Provenance>(
      `${LLM}/${agentId}/conversation/${reply.body.conversationId}/messages/${reply.body.message.id}/provenance`,
    );
    expect(provenance.body.toolCalls).toEqual([
      { name: 'search_knowledge', arguments: '{"query":"Vesuvius"}', ok: true, sources: expect.any(Array) },
    ]);
    expect(provenance.body.toolCalls[0]!.sources).toContain(index);
    expect(provenance.body.sources.map((source) => source.index)).toContain(index);
    expect(provenance.body.sources.map((source) => source.index)).not.toContain(99);
  });

  it('streams a turn as named events: conversation, retrieval, deltas, then done with the whole message', async () => {
    const agentId = await createAgent();
    const events = await streamTurn(api.url, agentId, { message: 'Which volcano is in Sicily?' });
    expect(events[0]!.event).toBe('conversation');
    expect(events[0]!.data).toMatchObject({ created: true, visibility: 'normal' });
    expect(events[1]!.event).toBe('retrieval');
    expect((events[1]!.data.sources as Citation[])[0]).toMatchObject({ documentId: volcanoes.id, index: 1 });
    const deltas = expectGroundedStream(events);
    const done = events.at(-1)!.data as unknown as Turn;
    expect(done.conversationId).toBe(events[0]!.data.conversationId);
    expect(done.message.content).toContain('Etna');
    // Every marker of the offline answer points at a source: nothing was dropped.
    expect(done.message.content).toBe(deltas.map((delta) => String(delta.data.text)).join(''));
    expect(done.message.citations[0]).toMatchObject({ index: 1, documentId: volcanoes.id });

    const history = await messagesOf(agentId, done.conversationId);
    expect(history.body.data.map((message) => message.content)).toEqual([
      'Which volcano is in Sicily?',
      done.message.content,
    ]);
  });

  it("asks the model while the user's message is being written, and tells the client of the conversation first", async () => {
    const agentId = await createAgent({ model: 'fake-chat' });
    const store = api.app.get<EventStore>(EVENT_STORE);
    const append = store.appendToStream.bind(store);
    let heldPost = false;
    // The log takes the user's message only once the model has been asked for the answer: a turn that waited for
    // the message before calling the model would wait here until this gives up (and its post fails).
    store.appendToStream = async (streamId, events, expected) => {
      if (events.some((event) => event.type === 'UserMessagePosted')) {
        await waitUntil(() => chatRequests(upstream).length > 0, 5_000);
        heldPost = true;
      }
      return append(streamId, events, expected);
    };
    try {
      const events = await streamTurn(api.url, agentId, { message: 'Which volcano is in Sicily?' });
      expect(heldPost).toBe(true);
      expectGroundedStream(events);
      const done = events.at(-1)!.data as unknown as Turn;
      const history = await messagesOf(agentId, done.conversationId);
      expect(history.body.data.map((message) => [message.role, message.status])).toEqual([
        ['user', 'complete'],
        ['assistant', 'complete'],
      ]);
    } finally {
      store.appendToStream = append;
    }
  });

  it('fails a turn whose message the log refuses, abandons its model call and records nothing', async () => {
    const agentId = await createAgent({ model: 'fake-chat', knowledgeEnabled: false });
    upstream.set({ latencyMs: 20_000 });
    const store = api.app.get<EventStore>(EVENT_STORE);
    const append = store.appendToStream.bind(store);
    // Every attempt finds the conversation's stream moved on (a writer that always wins), once the model is asked.
    store.appendToStream = async (streamId, events, expected) => {
      if (!events.some((event) => event.type === 'UserMessagePosted'))
        return append(streamId, events, expected);
      await waitUntil(() => chatRequests(upstream).length > 0, 5_000);
      throw new WrongExpectedRevisionError(streamId, String(expected), 7);
    };
    try {
      const started = Date.now();
      const turn = await converse(agentId, { message: 'Will this be kept?' });
      expect(turn.status).toBe(409);
      expect(turn.body).toMatchObject({ error: { code: 'wrong_expected_revision' } });
      // The model call was abandoned, not waited for (its answer would take 20 s; the bound leaves a loaded machine room).
      expect(Date.now() - started).toBeLessThan(10_000);
      await waitUntil(() => upstream.aborted >= 1, 5_000);
    } finally {
      store.appendToStream = append;
    }
    expect(await listed(agentId)).toEqual([]);
  });

  it('records a streamed turn the client abandoned as incomplete, and the upstream sees the client go away', async () => {
    const agentId = await createAgent({ model: 'fake-chat', knowledgeEnabled: false });
    upstream.set({ chunkDelayMs: 200, streamChunks: 50, reply: words(100, 'slow') });
    const controller = new AbortController();
    const response = await fetch(`${api.url}${LLM}/${agentId}/conversation`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Tell me a long story', stream: true }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: delta')) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    controller.abort();
    await reader.cancel().catch(() => undefined);
    const conversationId = String(parseSse(text.slice(0, text.indexOf('\n\n') + 2))[0]!.data.conversationId);

    let history: Message[] = [];
    await waitUntil(async () => {
      history = (await messagesOf(agentId, conversationId)).body.data ?? [];
      return history.length === 2;
    }, 10_000);
    expect(history[0]).toMatchObject({ role: 'user', content: 'Tell me a long story' });
    expect(history[1]).toMatchObject({ role: 'assistant', status: 'incomplete' });
    expect(words(100, 'slow').startsWith(history[1]!.content ?? '-')).toBe(true);
    await waitUntil(() => upstream.aborted >= 1, 10_000);
  });

  it('records every model call of a turn as usage with the conversation and the Agent, streamed ones too', async () => {
    const agentId = await createAgent({ model: 'fake-chat' });
    const key = await issueKey({ agents: 'all' });
    const caller = client(api.url, key.key);
    const plain = await converse(agentId, { message: 'Which volcano is in Sicily?' }, caller);
    expect(plain.status).toBe(201);
    const events = await streamTurn(api.url, agentId, { message: 'Where is Vesuvius?' }, key.key);
    const streamedId = String(events[0]!.data.conversationId);
    expect(events.at(-1)!.event).toBe('done');

    const store = api.app.get<EventStore>(EVENT_STORE);
    let calls: ModelCall[] = [];
    await waitUntil(async () => {
      calls = recordedCalls(await store.readStream(usageStreamId(key.id, utcDay(new Date()))));
      return (
        calls.filter((call) => call.operation === 'conversation').length >= 2 &&
        calls.some((call) => call.operation === 'memory_extraction')
      );
    }, 10_000);
    // Each turn: the embedding of the query, then the chat call; the plain one then extracts memories (a streamed
    // API turn never applies memory).
    const expected = {
      [plain.body.conversationId]: ['conversation', 'embeddings', 'memory_extraction'],
      [streamedId]: ['conversation', 'embeddings'],
    };
    for (const [conversationId, operations] of Object.entries(expected)) {
      const ofTurn = calls.filter((call) => call.conversationId === conversationId);
      expect(ofTurn.map((call) => call.operation).sort()).toEqual(operations);
      for (const call of ofTurn)
        expect(call).toMatchObject({ agentId, apiKeyId: key.id, outcome: 'completed' });
    }
    expect(calls.every((call) => call.conversationId !== undefined && call.agentId === agentId)).toBe(true);
    expect(
      calls.find((call) => call.conversationId === streamedId && call.operation === 'conversation'),
    ).toMatchObject({ streamed: true, model: 'fake-chat' });
  });

  it('answers 404 conversation_not_found to another user on every route, and lends history only to its owner', async () => {
    const agentId = await createAgent({ model: 'fake-chat' });
    const mine = await converse(agentId, { message: 'My secret question about Etna' });
    expect(mine.status).toBe(201);
    const { conversationId } = mine.body;
    const other = await issueKey({
      owner: { email: `${marker('other').toLowerCase()}@example.com` },
      agents: 'all',
    });
    // Another member of the Space: they use the Agent, not another's conversations.
    const joined = await admin.post(`${CORE}/spaces/${spaceId}/members`, {
      userId: (other as { ownerUserId?: string }).ownerUserId,
      role: 'member',
    });
    expect(joined.status).toBe(201);
    const stranger = client(api.url, other.key);
    const base = `${LLM}/${agentId}/conversation`;
    const attempts: [string, () => Promise<{ status: number; body: unknown }>][] = [
      ['messages', () => stranger.get(`${base}/${conversationId}/messages`)],
      [
        'provenance',
        () => stranger.get(`${base}/${conversationId}/messages/${mine.body.message.id}/provenance`),
      ],
      ['patch', () => stranger.patch(`${base}/${conversationId}`, { title: 'mine now' })],
      ['delete', () => stranger.delete(`${base}/${conversationId}`)],
      [
        'delete message',
        () => stranger.delete(`${base}/${conversationId}/messages/${mine.body.userMessage.id}`),
      ],
      ['continue', () => stranger.post(base, { conversationId, message: 'what did they ask?' })],
      [
        'generateText',
        () => stranger.post(`${LLM}/${agentId}/generateText`, { conversationId, messages: [user('x')] }),
      ],
    ];
    upstream.reset();
    for (const [route, attempt] of attempts) {
      const reply = await attempt();
      expect({ route, status: reply.status }).toEqual({ route, status: 404 });
      expect(reply.body).toMatchObject({ error: { code: 'conversation_not_found' } });
    }
    expect(chatRequests(upstream)).toHaveLength(0);
    expect((await listed(agentId, '?archived=all', stranger)).map((c) => c.id)).not.toContain(conversationId);
    // Still whole for its owner.
    expect((await messagesOf(agentId, conversationId)).body.data).toHaveLength(2);

    const owned = await admin.post(`${LLM}/${agentId}/generateText`, {
      conversationId,
      messages: [user('And Vesuvius?')],
    });
    expect(owned.status).toBe(200);
    expect(sent(chatRequests(upstream).at(-1)).messages).toEqual([
      user('My secret question about Etna'),
      { role: 'assistant', content: mine.body.message.content },
      user('And Vesuvius?'),
    ]);

    // A public Agent lends nobody's history to a guessed id.
    expect((await admin.put(`${CORE}/agents/${agentId}`, { isPublic: true })).status).toBe(200);
    upstream.reset();
    for (const [as, id] of [
      [stranger, 'cnv_0123456789abcdef0123456789abcdef'],
      [stranger, conversationId],
      [admin, 'cnv_0123456789abcdef0123456789abcdef'],
    ] as const) {
      const reply = await as.post(`${LLM}/${agentId}/generateText`, {
        conversationId: id,
        messages: [user('x')],
      });
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ error: { code: 'conversation_not_found' } });
    }
    expect(chatRequests(upstream)).toHaveLength(0);
  });

  it('keeps an incognito conversation out of the listing, the data directory and the logs', async () => {
    const agentId = await createAgent();
    const secret = marker('INCOGNITO');
    const reply = await converse(agentId, {
      message: `Which volcano is in Sicily? My code is ${secret}`,
      visibility: 'incognito',
    });
    expect(reply.status).toBe(201);
    expect(reply.body.message.content).toContain('Etna');
    const { conversationId } = reply.body;
    const next = await converse(agentId, { conversationId, message: `Repeat ${secret}` });
    expect(next.status).toBe(200);

    expect((await listed(agentId, '?archived=all')).map((c) => c.id)).not.toContain(conversationId);
    const history = await messagesOf(agentId, conversationId);
    expect(history.status).toBe(200);
    expect(history.body.data.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(history.body.data[0]!.content).toContain(secret);

    await projectionsCaughtUp(api.url);
    expect(filesContaining(api.config.dataDir, secret)).toEqual([]);
    expect(api.logs()).not.toContain(secret);

    // It cannot be archived (nothing is stored), and deleting it forgets it.
    const path = `${LLM}/${agentId}/conversation/${conversationId}`;
    const archive = await admin.patch(path, { archived: true });
    expect(archive.status).toBe(400);
    expect(archive.body).toMatchObject({ error: { code: 'incognito_conversation', param: 'archived' } });
    const pin = await admin.patch(path, { pinned: true });
    expect(pin.status).toBe(400);
    expect(pin.body).toMatchObject({ error: { code: 'incognito_conversation', param: 'pinned' } });
    expect((await admin.delete(path)).status).toBe(204);
    expect((await messagesOf(agentId, conversationId)).status).toBe(404);
  });

  it('lists a private conversation as private, and an archived one only when asked for archived ones', async () => {
    const agentId = await createAgent();
    const reply = await converse(agentId, { message: 'Which volcano is in Sicily?', visibility: 'private' });
    expect(reply.status).toBe(201);
    const { conversationId } = reply.body;
    const find = async (query: string) => (await listed(agentId, query)).find((c) => c.id === conversationId);
    expect(await find('')).toMatchObject({
      visibility: 'private',
      archived: false,
      messageCount: 2,
      title: 'Which volcano is in Sicily?',
    });

    const archived = await admin.patch(`${LLM}/${agentId}/conversation/${conversationId}`, {
      archived: true,
    });
    expect(archived.status).toBe(200);
    expect(await find('')).toBeUndefined();
    expect(await find('?archived=false')).toBeUndefined();
    expect(await find('?archived=true')).toMatchObject({ archived: true, visibility: 'private' });
    expect(await find('?archived=all')).toMatchObject({ archived: true });
    const history = await messagesOf(agentId, conversationId);
    expect(history.status).toBe(200);
    expect(history.body.data).toHaveLength(2);
  });

  it('pins and unpins a conversation: the listing and the conversation say so', async () => {
    const agentId = await createAgent();
    const reply = await converse(agentId, { message: 'Which volcano is in Sicily?' });
    const { conversationId } = reply.body;
    const path = `${LLM}/${agentId}/conversation/${conversationId}`;
    const find = async () => (await listed(agentId, '')).find((c) => c.id === conversationId);
    expect(await find()).toMatchObject({ pinned: false });

    const pinned = await admin.patch(path, { pinned: true });
    expect(pinned.status).toBe(200);
    expect(pinned.body).toMatchObject({ id: conversationId, pinned: true, archived: false });
    expect(await find()).toMatchObject({ pinned: true });
    expect((await admin.patch(path, { pinned: false })).body).toMatchObject({ pinned: false });
    expect(await find()).toMatchObject({ pinned: false });
    expect((await admin.patch(path, { pinned: 'yes' })).status).toBe(400);
  });

  it("searches the caller's conversations by title and by their messages' texts, archived ones only when asked", async () => {
    const agentId = await createAgent();
    const word = marker('SAFFRON').toLowerCase();
    const byMessage = await converse(agentId, { message: 'Which volcano is in Sicily?' });
    const later = await converse(agentId, {
      conversationId: byMessage.body.conversationId,
      message: `Is ${word} grown there?`,
    });
    expect(later.status).toBe(200);
    const byTitle = await converse(agentId, { message: `${word.toUpperCase()} and paella` });
    await converse(agentId, { message: 'Which volcano buried Pompeii?' });
    const search = async (query: string) =>
      (
        await admin.get<{ data: { id: string }[]; nextCursor: string | null }>(
          `${LLM}/${agentId}/conversation?${query}`,
        )
      ).body;

    const found = await search(`q=${encodeURIComponent(word)}`);
    expect(found.data.map((c) => c.id)).toEqual([byTitle.body.conversationId, byMessage.body.conversationId]);
    expect(found.nextCursor).toBeNull();
    expect((await search('q=nothing-like-this')).data).toEqual([]);
    expect((await admin.get(`${LLM}/${agentId}/conversation?q=`)).status).toBe(400);

    await admin.patch(`${LLM}/${agentId}/conversation/${byMessage.body.conversationId}`, { archived: true });
    expect((await search(`q=${word}`)).data.map((c) => c.id)).toEqual([byTitle.body.conversationId]);
    expect((await search(`q=${word}&archived=true`)).data.map((c) => c.id)).toEqual([
      byMessage.body.conversationId,
    ]);
  });

  it('deletes one message: later turns never send it upstream, and it is gone from the history', async () => {
    const agentId = await createAgent({ model: 'fake-chat', knowledgeEnabled: false });
    upstream.set({ reply: 'Noted.' });
    const secret = marker('LOCKER');
    const first = await converse(agentId, { message: `My locker code is ${secret}` });
    expect(first.status).toBe(201);
    const { conversationId } = first.body;
    expect(JSON.stringify(sent(chatRequests(upstream).at(-1)).messages)).toContain(secret);

    const path = `${LLM}/${agentId}/conversation/${conversationId}/messages/${first.body.userMessage.id}`;
    expect((await admin.delete(path)).status).toBe(204);
    const again = await admin.delete(path);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ error: { code: 'message_not_found' } });

    upstream.reset();
    upstream.set({ reply: 'Noted again.' });
    const second = await converse(agentId, { conversationId, message: 'What is my locker code?' });
    expect(second.status).toBe(200);
    expect(upstream.requests.length).toBeGreaterThan(0);
    for (const request of upstream.requests) expect(request.rawBody).not.toContain(secret);
    expect(
      sent(chatRequests(upstream).at(-1)).messages.filter((message) => message.role !== 'system'),
    ).toEqual([{ role: 'assistant', content: 'Noted.' }, user('What is my locker code?')]);

    const history = await messagesOf(agentId, conversationId);
    expect(history.body.data.map((message) => message.id)).toEqual([
      first.body.message.id,
      second.body.userMessage.id,
      second.body.message.id,
    ]);
    expect(JSON.stringify(history.body)).not.toContain(secret);
  });

  it('deletes a conversation for good: its texts were sealed, and a rebuild of the read models cannot bring them back', async () => {
    const own = await startTestApi();
    extraApis.push(own);
    const as = client(own.url);
    const space = await as.post(`${CORE}/spaces`, { name: uniqueName('Erasure') });
    const agentId = await createAgent({ knowledgeEnabled: false }, as, space.body.id as string);
    const secret = marker('ERASE');
    const reply = await converse(agentId, { message: `Remember ${secret} for me` }, as);
    expect(reply.status).toBe(201);
    expect(reply.body.message.content).toContain(secret);
    const { conversationId } = reply.body;
    expect((await messagesOf(agentId, conversationId, as)).body.data[0]!.content).toContain(secret);

    await projectionsCaughtUp(own.url);
    // Sealed with per-message keys: the words are nowhere in clear, not even before the deletion.
    expect(filesContaining(own.config.dataDir, secret)).toEqual([]);

    expect((await as.delete(`${LLM}/${agentId}/conversation/${conversationId}`)).status).toBe(204);
    const gone = await messagesOf(agentId, conversationId, as);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ error: { code: 'conversation_not_found' } });
    await own.close();

    // The operators' CLI rebuilds the conversations read models from the log, over the same data directory.
    const cli = fileURLToPath(new URL('../dist/apps/cli/src/main.js', import.meta.url));
    const run = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, [cli, 'projections', 'rebuild', 'conversations'], {
        env: { PATH: process.env.PATH ?? '', DATA_DIR: own.config.dataDir, LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('exit', (code) => resolve({ code, output }));
    });
    expect(run).toMatchObject({ code: 0 });
    expect(filesContaining(own.config.dataDir, secret)).toEqual([]);

    const reopened = await startTestApi({ DATA_DIR: own.config.dataDir });
    extraApis.push(reopened);
    const reads = reopened.app.get<ReadStore>(READ_STORE);
    expect(await reads.reader('conversations').get(conversationId)).toBeNull();
    expect((await reads.reader('conversation_messages').find({ conversationId })).data).toEqual([]);
    expect((await messagesOf(agentId, conversationId, client(reopened.url))).status).toBe(404);
    await reopened.close();
    expect(filesContaining(own.config.dataDir, secret)).toEqual([]);
  }, 60_000);

  it('compacts a history that outgrows its budget into a summary, sent before the messages kept verbatim', async () => {
    const own = await startTestApi({ MODELS_FILE: modelsFile(), CONVERSATION_TOKEN_BUDGET: '256' });
    extraApis.push(own);
    const as = client(own.url);
    const space = await as.post(`${CORE}/spaces`, { name: uniqueName('Compaction') });
    const agentId = await createAgent({ model: 'fake-chat' }, as, space.body.id as string);
    expect((await as.put(`${CORE}/agents/${agentId}`, { knowledgeEnabled: false })).status).toBe(200);
    const isSummary = (request: FakeUpstreamRequest) =>
      systemTexts(request).some((text) => text.includes('Summarise'));
    upstream.set({ reply: (request) => (isSummary(request) ? 'SUMMARY-OF-EARLIER' : 'Noted.') });

    const paragraph = (topic: string) =>
      Array.from({ length: 15 }, (_, i) => `Sentence ${i} about ${topic} has exactly ten words in it.`).join(
        ' ',
      );
    let conversationId: string | undefined;
    const sentMessages: string[] = [];
    let compaction: SseEvent | undefined;
    for (const topic of ['basalt', 'pumice', 'obsidian', 'tuff']) {
      const message = paragraph(topic);
      sentMessages.push(message);
      const events = await streamTurn(own.url, agentId, {
        message,
        ...(conversationId ? { conversationId } : {}),
      });
      expect(events.at(-1)!.event).toBe('done');
      conversationId = String(events[0]!.data.conversationId);
      compaction ??= events.find((event) => event.event === 'compaction');
      if (compaction) break;
    }
    expect(compaction).toBeDefined();
    expect(compaction!.data).toMatchObject({
      checkpointId: expect.any(String),
      throughMessageId: expect.any(String),
      throughOffset: expect.any(Number),
    });
    expect(compaction!.data.tokensAfter as number).toBeLessThan(compaction!.data.tokensBefore as number);

    const history = await messagesOf(agentId, conversationId!, as);
    const checkpoint = history.body.compaction!;
    expect(checkpoint).toEqual({
      checkpointId: compaction!.data.checkpointId,
      throughMessageId: compaction!.data.throughMessageId,
      throughOffset: compaction!.data.throughOffset,
      summary: 'SUMMARY-OF-EARLIER',
    });
    // The raw history is whole.
    expect(history.body.data.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(sentMessages);
    expect(history.body.data.every((m) => m.role === 'user' || m.content === 'Noted.')).toBe(true);

    // The summary call, then the answer's call: the summary first, then what was kept verbatim.
    const requests = chatRequests(upstream);
    const summaryAt = requests.findIndex(isSummary);
    expect(summaryAt).toBeGreaterThanOrEqual(0);
    const answer = sent(requests[summaryAt + 1]);
    const summaryMessage = answer.messages.findIndex(
      (message) => message.role === 'system' && textOf(message.content).includes('SUMMARY-OF-EARLIER'),
    );
    expect(summaryMessage).toBeGreaterThanOrEqual(0);
    const kept = answer.messages.slice(summaryMessage + 1);
    expect(kept.length).toBeGreaterThanOrEqual(1);
    expect(kept.every((message) => message.role !== 'system')).toBe(true);
    expect(kept.at(-1)).toEqual(user(sentMessages.at(-1)!));
    const through = history.body.data.find((message) => message.id === checkpoint.throughMessageId)!;
    const throughText = through.content!;
    if (checkpoint.throughOffset > 0 && checkpoint.throughOffset < throughText.length)
      expect(textOf(kept[0]!.content)).toBe(throughText.slice(checkpoint.throughOffset));
    // Exactly what follows the boundary (up to the turn's own message) is sent verbatim, nothing before it.
    const from = history.body.data.indexOf(through);
    const visible = history.body.data.slice(from, -1).map((message) => message.content!);
    visible[0] = throughText.slice(checkpoint.throughOffset);
    expect(kept.map((message) => textOf(message.content))).toEqual(visible.filter((text) => text.length > 0));

    // The next turn starts from the checkpoint too.
    upstream.reset();
    upstream.set({ reply: (request) => (isSummary(request) ? 'SUMMARY-OF-EARLIER' : 'Noted.') });
    const next = await converse(agentId, { conversationId, message: 'Short one.' }, as);
    expect(next.status).toBe(200);
    const last = sent(chatRequests(upstream).at(-1));
    expect(
      last.messages.some((m) => m.role === 'system' && textOf(m.content).includes('SUMMARY-OF-EARLIER')),
    ).toBe(true);
    await own.close();
  }, 60_000);

  it('replays a turn retried with the same Idempotency-Key without calling the model again', async () => {
    const agentId = await createAgent({ model: 'fake-chat' });
    const key = { 'idempotency-key': marker('turn') };
    const first = await converse(agentId, { message: 'Which volcano is in Sicily?' }, admin, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await converse(agentId, { message: 'Which volcano is in Sicily?' }, admin, key);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toMatchObject({
      conversationId: first.body.conversationId,
      userMessage: { id: first.body.userMessage.id },
      message: { id: first.body.message.id, content: first.body.message.content },
    });
    expect(chatRequests(upstream)).toHaveLength(1);
    expect((await messagesOf(agentId, first.body.conversationId)).body.data).toHaveLength(2);
  });

  it('replays an incognito turn retried with the same Idempotency-Key, appending nothing', async () => {
    const agentId = await createAgent({ model: 'fake-chat', knowledgeEnabled: false });
    const key = { 'idempotency-key': marker('incognito-turn') };
    const body = { message: 'Hello in private', visibility: 'incognito' };
    const first = await converse(agentId, body, admin, key);
    expect(first.status).toBe(201);
    const second = await converse(agentId, body, admin, key);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toMatchObject({
      conversationId: first.body.conversationId,
      userMessage: { id: first.body.userMessage.id },
      message: { id: first.body.message.id },
    });
    expect(chatRequests(upstream)).toHaveLength(1);
    const history = await messagesOf(agentId, first.body.conversationId);
    expect(history.body.data.map((message) => message.id)).toEqual([
      first.body.userMessage.id,
      first.body.message.id,
    ]);
  });

  it('replays a streamed retry with the conversation as it is (private), flagged as replayed', async () => {
    const agentId = await createAgent({ model: 'fake-chat', knowledgeEnabled: false });
    const key = marker('private-turn');
    const body = JSON.stringify({ message: 'Hello', visibility: 'private', stream: true });
    const headers = { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', 'idempotency-key': key };
    const first = parseSse(
      await (
        await fetch(`${api.url}${LLM}/${agentId}/conversation`, { method: 'POST', headers, body })
      ).text(),
    );
    expect(first[0]!.data).toMatchObject({ created: true, visibility: 'private' });
    const retry = await fetch(`${api.url}${LLM}/${agentId}/conversation`, { method: 'POST', headers, body });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const events = parseSse(await retry.text());
    expect(events.map((event) => event.event)).toEqual(['conversation', 'done']);
    expect(events[0]!.data).toMatchObject({
      conversationId: first[0]!.data.conversationId,
      created: false,
      visibility: 'private',
    });
    expect(chatRequests(upstream)).toHaveLength(1);
  });

  it("deletes an Agent's conversations with it", async () => {
    const agentId = await createAgent();
    const reply = await converse(agentId, { message: 'Which volcano is in Sicily?' });
    expect(reply.status).toBe(201);
    const { conversationId } = reply.body;
    const reads = api.app.get<ReadStore>(READ_STORE);
    expect(await reads.reader('conversations').get(conversationId)).not.toBeNull();

    expect((await admin.delete(`${CORE}/agents/${agentId}`)).status).toBe(204);
    expect((await messagesOf(agentId, conversationId)).status).toBe(404);
    await waitUntil(async () => (await reads.reader('conversations').get(conversationId)) === null, 10_000);
    expect((await reads.reader('conversation_messages').find({ conversationId })).data).toEqual([]);
  });

  it("refuses a turn over the key's usage limit with 429 usage_limit_exceeded", async () => {
    const agentId = await createAgent({ model: 'fake-chat' });
    const key = await issueKey({ agents: 'all', usageLimit: { tokens: 10, window: 'day' } });
    const reply = await converse(agentId, { message: words(200, 'limit') }, client(api.url, key.key));
    expect(reply.status).toBe(429);
    expect(reply.body).toMatchObject({ error: { code: 'usage_limit_exceeded' } });
    expect(chatRequests(upstream)).toHaveLength(0);
  });

  it('answers a keyed turn again once the cause of its failure is gone, and refuses the key for another message', async () => {
    const agentId = await createAgent({ model: 'fake-chat' });
    const key = await issueKey({ agents: 'all', usageLimit: { tokens: 10, window: 'day' } });
    const as = client(api.url, key.key);
    const headers = { 'idempotency-key': marker('retry') };
    const message = words(200, 'retry');
    const refused = await converse(agentId, { message }, as, headers);
    expect(refused.status).toBe(429);
    expect((await admin.delete(`${CORE}/cost-control/${key.id}`)).status).toBe(200);

    const retried = await converse(agentId, { message }, as, headers);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body.message.status).toBe('complete');
    expect(chatRequests(upstream)).toHaveLength(1);
    // The question went upstream once, not once per attempt.
    const asked = sent(chatRequests(upstream)[0]).messages.filter((m) => textOf(m.content) === message);
    expect(asked).toHaveLength(1);
    const history = (await messagesOf(agentId, retried.body.conversationId, as)).body.data;
    expect(history.map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'incomplete'],
      ['assistant', 'complete'],
    ]);

    const replayed = await converse(agentId, { message }, as, headers);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.message.id).toBe(retried.body.message.id);
    const reused = await converse(agentId, { message: 'another question' }, as, headers);
    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({ error: { code: 'idempotency_key_reused' } });
    expect(chatRequests(upstream)).toHaveLength(1);
  });
});
