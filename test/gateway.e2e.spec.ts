// The compatible gateway through the real `openai` SDK, as its users call it.
import OpenAI from 'openai';
import { ADMIN_KEY, startTestApi, type TestApi } from './support/api.js';

describe('compatible gateway (e2e, openai SDK)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api.close();
  });
  const sdk = (apiKey: string, headers?: Record<string, string>) =>
    new OpenAI({
      baseURL: `${api.url}/api/compat/v1`,
      apiKey,
      maxRetries: 0,
      ...(headers ? { defaultHeaders: headers } : {}),
    });

  it('lists chat and embedding models, not the reranker', async () => {
    const ids: string[] = [];
    for await (const model of sdk(ADMIN_KEY).models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(['offline-chat', 'offline-embed']));
    expect(ids).not.toContain('offline-rerank');
    expect(ids).not.toContain('offline-image');
  });

  it('accepts x-api-key as well as Bearer, and surfaces a bad key as AuthenticationError', async () => {
    const viaHeader = await fetch(`${api.url}/api/compat/v1/models`, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(viaHeader.status).toBe(200);
    const failure = await sdk('ap_wrong')
      .models.list()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(failure).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });
});
