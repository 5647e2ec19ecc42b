// The HTTP layer's edges a client meets: bodies declared JSON but empty, the body limits (the documented 10 MiB
// attachment fits a turn; beyond a route's limit a 413 with the envelope), and the limits named in the OpenAPI
// document.
import { TURN_BODY_LIMIT_BYTES } from '#conversations/conversation.schemas';
import { MAX_ATTACHMENT_BYTES } from '#conversations/runtime/attachments';
import { DEFAULT_BODY_LIMIT_BYTES } from '#http';
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';

const LLM = `${CORE}/llm`;

type Turn = {
  conversationId: string;
  userMessage: { id: string };
  message: { id: string };
};
type ErrorReply = { error: { type: string; code: string; message: string; param?: string } };

describe('HTTP bodies and limits (e2e)', () => {
  let api: TestApi;
  let agentId: string;
  const admin = () => client(api.url);

  beforeAll(async () => {
    api = await startTestApi();
    const space = await admin().post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Limits') });
    const agent = await admin().post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: 'Reader',
      knowledgeEnabled: false,
    });
    agentId = agent.body.id;
  });
  afterAll(async () => {
    await api.close();
  });

  /** A raw request with exactly this body and content type (fetch adds nothing else). */
  const send = (method: string, path: string, body: string | undefined, type = 'application/json') =>
    fetch(`${api.url}${path}`, {
      method,
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': type },
      body,
    });

  it('takes a DELETE sent with content-type application/json and no body as a request without a body', async () => {
    const turn = await admin().post<Turn>(`${LLM}/${agentId}/conversation`, { message: 'Delete me later.' });
    expect(turn.status).toBe(201);
    const path = `${LLM}/${agentId}/conversation/${turn.body.conversationId}/messages/${turn.body.userMessage.id}`;
    const deleted = await send('DELETE', path, undefined);
    expect(deleted.status).toBe(204);
    const again = await send('DELETE', path, '');
    expect([again.status, ((await again.json()) as ErrorReply).error.code]).toEqual([
      404,
      'message_not_found',
    ]);
    // A body that is there but not JSON is still refused, with the envelope.
    const broken = await send('DELETE', path, '{');
    expect([broken.status, ((await broken.json()) as ErrorReply).error.code]).toEqual([400, 'invalid_json']);
    // An empty body where one is required is a validation error naming what is missing, not a JSON error.
    const empty = await send('POST', `${CORE}/spaces`, '');
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as ErrorReply).error.code).toBe('invalid_body');
  });

  it('accepts a turn with a 10 MiB attachment (13.3 MiB of base64), and answers 413 with the envelope beyond the limit', async () => {
    expect(MAX_ATTACHMENT_BYTES).toBe(10 * 1024 * 1024);
    // Japanese text (3 bytes a character in UTF-8): 10 MiB of bytes whose text stays within the Knowledge parsers'
    // 5,000,000 characters, so the attachment is read whole.
    const line = Buffer.from('四半期報告書には収益と費用と来年の計画が記載されています。\n');
    const lines = Math.floor(MAX_ATTACHMENT_BYTES / line.length);
    const file = Buffer.concat([
      ...Array.from({ length: lines }, () => line),
      Buffer.alloc(MAX_ATTACHMENT_BYTES - lines * line.length, 0x2e),
    ]);
    expect(file.length).toBe(MAX_ATTACHMENT_BYTES);
    const body = JSON.stringify({
      message: {
        content: 'What does the report list?',
        attachments: [{ name: 'report.txt', mimeType: 'text/plain', dataBase64: file.toString('base64') }],
      },
    });
    // Over the 10 MiB every other route takes, within the turn's limit.
    expect(Buffer.byteLength(body)).toBeGreaterThan(DEFAULT_BODY_LIMIT_BYTES);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(TURN_BODY_LIMIT_BYTES);
    const accepted = await send('POST', `${LLM}/${agentId}/conversation`, body);
    const turn = (await accepted.json()) as Turn;
    expect([accepted.status, turn]).toEqual([
      201,
      expect.objectContaining({ conversationId: expect.any(String) }),
    ]);
    const messages = await admin().get<{ data: { id: string; attachments: unknown[] }[] }>(
      `${LLM}/${agentId}/conversation/${turn.conversationId}/messages`,
    );
    expect(messages.body.data.find((message) => message.id === turn.userMessage.id)?.attachments).toEqual([
      expect.objectContaining({ name: 'report.txt', sizeBytes: MAX_ATTACHMENT_BYTES }),
    ]);

    // One byte over the turn's limit: 413 body_too_large in the envelope, and the server stays up.
    const over = await send(
      'POST',
      `${LLM}/${agentId}/conversation`,
      JSON.stringify({ message: 'x', pad: '' }).padEnd(TURN_BODY_LIMIT_BYTES + 1, ' '),
    );
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({
      error: { type: 'invalid_request_error', code: 'body_too_large', message: expect.any(String) },
    });
    // Every other route keeps the default limit: the same turn's body is too large for a Space.
    const elsewhere = await send('POST', `${CORE}/spaces`, body);
    expect(elsewhere.status).toBe(413);
    expect(((await elsewhere.json()) as ErrorReply).error.code).toBe('body_too_large');
    expect((await fetch(`${api.url}/health/live`)).status).toBe(200);
  });

  it('documents both limits in the OpenAPI document', async () => {
    type Operation = {
      requestBody?: { description?: string; content: Record<string, { schema: unknown }> };
      responses: Record<string, unknown>;
    };
    const doc = (await (await fetch(`${api.url}${CORE}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const turn = doc.paths[`${CORE}/llm/{agentId}/conversation`]!.post!;
    expect(turn.requestBody?.description).toContain(`At most ${TURN_BODY_LIMIT_BYTES} bytes (15 MiB)`);
    expect(turn.responses['413']).toBeDefined();
    expect(JSON.stringify(turn.requestBody?.content)).toContain(
      `at most ${MAX_ATTACHMENT_BYTES} bytes decoded`,
    );
    const space = doc.paths[`${CORE}/spaces`]!.post!;
    expect(space.requestBody?.description).toContain(`At most ${DEFAULT_BODY_LIMIT_BYTES} bytes (10 MiB)`);
    expect(space.responses['413']).toBeDefined();
  });
});
