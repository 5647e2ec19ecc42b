// Stored Responses through the compatible gateway, with the official openai SDK and the AI SDK as clients and a fake
// upstream of chat completions: an answer is stored by default; `previous_response_id` continues it (the upstream
// receives the earlier input and output before the new input, not its instructions); an `item_reference` names a
// stored item; GET, input_items and DELETE work for the person whose key made it and 404 for anyone else (another
// person cannot continue it either); a streamed answer is stored as it completes (the next request waits for the write); `store: false` keeps
// nothing; the words are sealed in the log and erased by DELETE (also the moment it is answered); the AI SDK's
// default multi-turn (its response's messages passed back) works; the answers given before the api closes are
// written before it does.
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import OpenAI from 'openai';
import { generateText, type ModelMessage } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { ContentCipher } from '#key-store';
import { StoredResponseSweeper } from '#model-gateway';
import { waitUntil } from '#testing/fixtures';
import {
  startFakeUpstream,
  type FakeUpstream,
  type FakeUpstreamRequest,
} from '#testing/fake-openai-upstream';
import {
  ADMIN_KEY,
  client,
  CORE,
  registeredPerson,
  startTestApi,
  writeModelsFile,
  type TestApi,
} from './support/api.js';

type Message = { role: string; content: unknown };
const sentMessages = (request: FakeUpstreamRequest) =>
  (request.body as { messages: Message[] }).messages.map((message) => ({
    role: message.role,
    content:
      typeof message.content === 'string'
        ? message.content
        : (message.content as { text?: string }[]).map((part) => part.text ?? '').join(''),
  }));

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error,
  );

describe('stored Responses (e2e, openai SDK and AI SDK)', () => {
  let api: TestApi;
  let upstream: FakeUpstream;
  let otherKey: string;
  const sdk = (apiKey = ADMIN_KEY) =>
    new OpenAI({ baseURL: `${api.url}/api/compat/v1`, apiKey, maxRetries: 0 });
  const chatRequests = () =>
    upstream.requests.filter((request) => request.path.endsWith('/chat/completions'));

  beforeAll(async () => {
    upstream = await startFakeUpstream({ reply: 'Hello Ada.' });
    api = await startTestApi({
      MODELS_FILE: writeModelsFile([
        'providers:',
        `  fake: { baseUrl: '${upstream.url}' }`,
        'models:',
        '  - { key: fake-chat, modelId: fake-model, provider: fake, kind: chat }',
      ]),
    });
    const email = `responses-other-${Date.now()}@example.com`;
    await registeredPerson(api.url, email);
    const key = await client(api.url).post<{ key: string }>(`${CORE}/api-keys`, {
      name: 'other person',
      owner: { email },
    });
    expect(key.status).toBe(201);
    otherKey = key.body.key;
  });
  afterEach(() => upstream.reset());
  afterAll(async () => {
    await api?.close();
    await upstream?.close();
  });

  it('continues a stored response with previous_response_id and item references; GET and input_items read it', async () => {
    const first = await sdk().responses.create({
      model: 'fake-chat',
      instructions: 'Be brief.',
      input: 'My name is Ada.',
    });
    expect(first).toMatchObject({ store: true, status: 'completed', output_text: 'Hello Ada.' });
    expect((await sdk().responses.retrieve(first.id)).output_text).toBe('Hello Ada.');

    const second = await sdk().responses.create({
      model: 'fake-chat',
      previous_response_id: first.id,
      input: 'What is my name?',
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(sentMessages(chatRequests().at(-1)!)).toEqual([
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);

    const reply = first.output[0]!;
    const referenced = await sdk().responses.create({
      model: 'fake-chat',
      input: [
        { role: 'user', content: 'My name is Ada.' },
        { type: 'item_reference', id: reply.id! },
        { role: 'user', content: 'Again?' },
      ],
    });
    expect(referenced.status).toBe('completed');
    expect(sentMessages(chatRequests().at(-1)!)).toEqual([
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'Again?' },
    ]);

    const items = await sdk().responses.inputItems.list(second.id, { order: 'asc' });
    expect(items.data.map((item) => item.type)).toEqual(['message', 'message', 'message']);
    expect(items.data.every((item) => typeof item.id === 'string')).toBe(true);
    const page = await sdk().responses.inputItems.list(second.id, { order: 'asc', limit: 1 });
    expect(page.data).toHaveLength(1);
    expect(page.has_more).toBe(true);

    // Unknown ids, and an unknown item, are 400s naming the field.
    const unknown = await failureOf(
      sdk().responses.create({ model: 'fake-chat', previous_response_id: 'resp_nope', input: 'x' }),
    );
    expect(unknown).toMatchObject({
      status: 400,
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    });
    const noItem = await failureOf(
      sdk().responses.create({ model: 'fake-chat', input: [{ type: 'item_reference', id: 'msg_nope_0' }] }),
    );
    expect(noItem).toMatchObject({ status: 400, param: 'input.0.id', code: 'item_not_found' });
  });

  it("is its person's alone, stored sealed, erased by DELETE; store: false keeps nothing", async () => {
    const secret = `Ada-${Date.now()}`;
    const answer = await sdk().responses.create({ model: 'fake-chat', input: `My name is ${secret}.` });

    // Another person's key: as if it never existed.
    expect(await failureOf(sdk(otherKey).responses.retrieve(answer.id))).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await failureOf(sdk(otherKey).responses.delete(answer.id))).toBeInstanceOf(OpenAI.NotFoundError);
    const theirs = await failureOf(
      sdk(otherKey).responses.create({ model: 'fake-chat', previous_response_id: answer.id, input: 'x' }),
    );
    expect(theirs).toMatchObject({ status: 400, code: 'previous_response_not_found' });

    const db = new DatabaseSync(join(api.config.dataDir, 'events.db'), { readOnly: true });
    let stored: { input: string; response: string };
    try {
      const row = db
        .prepare("SELECT data FROM events WHERE stream_id = ? AND type = 'ResponseStored'")
        .get(`response-${answer.id}`) as { data: string };
      expect(row.data).not.toContain(secret);
      stored = JSON.parse(row.data) as { input: string; response: string };
    } finally {
      db.close();
    }
    const cipher = api.app.get(ContentCipher);
    expect(await cipher.open(stored.input)).toContain(secret);

    expect(await sdk().responses.delete(answer.id)).toMatchObject({ id: answer.id, deleted: true });
    expect(await cipher.open(stored.input)).toBeNull();
    expect(await cipher.open(stored.response)).toBeNull();
    expect(await failureOf(sdk().responses.retrieve(answer.id))).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await failureOf(sdk().responses.delete(answer.id))).toBeInstanceOf(OpenAI.NotFoundError);
    // The audit trail has its erasure, not its storing (traffic, like a model call's usage record).
    const audit = await client(api.url).get<{ data: { eventType: string; resource: { id: string } }[] }>(
      `${CORE}/audit?action=response&limit=500`,
    );
    expect(audit.status).toBe(200);
    const entries = audit.body.data.filter((entry) => JSON.stringify(entry).includes(answer.id));
    expect(entries.map((entry) => entry.eventType)).toEqual(['ResponseDeleted']);

    const unstored = await sdk().responses.create({ model: 'fake-chat', input: 'x', store: false });
    expect((unstored as unknown as { store: boolean }).store).toBe(false);
    expect(await failureOf(sdk().responses.retrieve(unstored.id))).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("stores answers made together (written in one batch) each as its person's, readable back at once", async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        sdk(i % 2 ? otherKey : ADMIN_KEY).responses.create({ model: 'fake-chat', input: `Number ${i}.` }),
      ),
    );
    expect(new Set(answers.map((answer) => answer.id)).size).toBe(12);
    for (const [i, answer] of answers.entries()) {
      const owner = i % 2 ? otherKey : ADMIN_KEY;
      const stranger = i % 2 ? ADMIN_KEY : otherKey;
      expect(await sdk(owner).responses.retrieve(answer.id)).toMatchObject({ id: answer.id });
      const items = await sdk(owner).responses.inputItems.list(answer.id);
      expect(JSON.stringify(items.data)).toContain(`Number ${i}.`);
      expect(await failureOf(sdk(stranger).responses.retrieve(answer.id))).toBeInstanceOf(
        OpenAI.NotFoundError,
      );
    }
  });

  it('deletes an answer the moment it is answered (the delete waits for its gathered write)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 3 }, (_, i) =>
        sdk().responses.create({ model: 'fake-chat', input: `Gone ${i}.` }),
      ),
    );
    for (const answer of answers)
      expect(await sdk().responses.delete(answer.id)).toMatchObject({ id: answer.id, deleted: true });
    for (const answer of answers)
      expect(await failureOf(sdk().responses.retrieve(answer.id))).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('stores a streamed answer: the next request continues it at once (it waits for the write on this process)', async () => {
    const stream = sdk().responses.stream({ model: 'fake-chat', input: 'My name is Ada.' });
    const final = await stream.finalResponse();
    const next = await sdk().responses.create({
      model: 'fake-chat',
      previous_response_id: final.id,
      input: 'Who am I?',
    });
    expect(next.status).toBe('completed');
    expect(sentMessages(chatRequests().at(-1)!).map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
  });

  it("works with the AI SDK's default multi-turn: the response's messages passed back", async () => {
    // What the AI SDK sends us: its second request names the stored answer instead of repeating it.
    const sent: { input?: { type?: string }[] }[] = [];
    const openai = createOpenAI({
      baseURL: `${api.url}/api/compat/v1`,
      apiKey: ADMIN_KEY,
      fetch: (url, init) => {
        if (typeof init?.body === 'string') sent.push(JSON.parse(init.body) as (typeof sent)[number]);
        return fetch(url, init);
      },
    });
    const messages: ModelMessage[] = [{ role: 'user', content: 'My name is Ada.' }];
    const first = await generateText({ model: openai('fake-chat'), messages, maxRetries: 0 });
    expect(first.text).toBe('Hello Ada.');
    messages.push(...first.response.messages, { role: 'user', content: 'What is my name?' });
    const second = await generateText({ model: openai('fake-chat'), messages, maxRetries: 0 });
    expect(second.text).toBe('Hello Ada.');
    expect(sent.at(-1)?.input?.map((item) => item.type ?? 'message')).toContain('item_reference');
    expect(sentMessages(chatRequests().at(-1)!)).toEqual([
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
  });
});

describe('stored Responses expiring (e2e)', () => {
  let api: TestApi;

  beforeAll(async () => {
    // About 0.9 s.
    api = await startTestApi({ RESPONSES_RETENTION_DAYS: '0.00001' });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('finds nothing once RESPONSES_RETENTION_DAYS have passed, and the sweeper erases it', async () => {
    const sdk = new OpenAI({ baseURL: `${api.url}/api/compat/v1`, apiKey: ADMIN_KEY, maxRetries: 0 });
    const answer = await sdk.responses.create({ model: 'offline-chat', input: 'Remember me for a moment.' });
    await waitUntil(
      async () => (await failureOf(sdk.responses.retrieve(answer.id))) instanceof OpenAI.NotFoundError,
      10_000,
    );
    const continued = await failureOf(
      sdk.responses.create({ model: 'offline-chat', previous_response_id: answer.id, input: 'x' }),
    );
    expect(continued).toMatchObject({ status: 400, code: 'previous_response_not_found' });

    await waitUntil(async () => (await api.app.get(StoredResponseSweeper).sweep()) >= 0 && erased(), 10_000);
    function erased(): boolean {
      const db = new DatabaseSync(join(api.config.dataDir, 'events.db'), { readOnly: true });
      try {
        const row = db
          .prepare("SELECT data FROM events WHERE stream_id = ? AND type = 'ResponseDeleted'")
          .get(`response-${answer.id}`) as { data: string } | undefined;
        return row !== undefined && (JSON.parse(row.data) as { reason: string }).reason === 'expired';
      } finally {
        db.close();
      }
    }
    const db = new DatabaseSync(join(api.config.dataDir, 'events.db'), { readOnly: true });
    const sealed = (
      JSON.parse(
        (
          db
            .prepare("SELECT data FROM events WHERE stream_id = ? AND type = 'ResponseStored'")
            .get(`response-${answer.id}`) as { data: string }
        ).data,
      ) as { input: string }
    ).input;
    db.close();
    expect(await api.app.get(ContentCipher).open(sealed)).toBeNull();
  });
});

describe('stored Responses when the api closes (e2e)', () => {
  it('writes the answers it gave before it closes: after a restart on the same data they are found', async () => {
    const first = await startTestApi();
    const dataDir = first.config.dataDir;
    let answers: { id: string }[];
    try {
      const sdk = new OpenAI({ baseURL: `${first.url}/api/compat/v1`, apiKey: ADMIN_KEY, maxRetries: 0 });
      answers = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          sdk.responses.create({ model: 'offline-chat', input: `Keep answer ${i}.` }),
        ),
      );
    } finally {
      // At once: the answers' writes are still gathering for their batch.
      await first.close();
    }
    const again = await startTestApi({ DATA_DIR: dataDir });
    try {
      const sdk = new OpenAI({ baseURL: `${again.url}/api/compat/v1`, apiKey: ADMIN_KEY, maxRetries: 0 });
      for (const answer of answers)
        expect(await sdk.responses.retrieve(answer.id)).toMatchObject({ id: answer.id, status: 'completed' });
    } finally {
      await again.close();
    }
  });
});
