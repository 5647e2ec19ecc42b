// A person's usage split by model and by Agent (`GET /usage?dimension=user&by=model|agent`) after real calls through
// the offline models: the compatible API (no Agent) and a conversation turn with an Agent. A person reads their own
// split; another person's is refused unless an admin asks; a bad `by` is a 400 with the error envelope.
import OpenAI from 'openai';
import { waitUntil } from '#testing/fixtures';
import { client, CORE, registeredPerson, startTestApi, uniqueName, type TestApi } from './support/api.js';

interface Figures {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  billableCostUsd: number;
}
interface Part {
  key: string;
  totals: Figures;
  days: (Figures & { day: string })[];
  records: { day: string; isIncludedUsage: boolean; calls: number; costUsd: number }[];
}
interface Answer {
  subject: string;
  totals: Figures;
  by?: string;
  parts?: Part[];
}

describe("a user's usage by model and by Agent (e2e)", () => {
  let api: TestApi;
  let agentId: string;
  let person: { id: string; key: string };
  let other: { id: string; key: string };
  const admin = () => client(api.url);
  const sum = (parts: Part[], field: keyof Figures) =>
    parts.reduce((total, part) => total + part.totals[field], 0);

  /** A person with a key granted the Agent (a member of its Space). */
  async function memberWithKey(spaceId: string, label: string) {
    const email = `${label}-${Date.now()}@example.com`;
    const id = await registeredPerson(api.url, email);
    expect(
      (await admin().post(`${CORE}/spaces/${spaceId}/members`, { userId: id, role: 'member' })).status,
    ).toBe(201);
    const key = await admin().post<{ key: string }>(`${CORE}/api-keys`, {
      name: uniqueName('key'),
      owner: { email },
      agents: [agentId],
    });
    expect(key.status).toBe(201);
    return { id, key: key.body.key };
  }

  beforeAll(async () => {
    api = await startTestApi();
    const space = await admin().post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Usage') });
    expect(space.status).toBe(201);
    const agent = await admin().post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: uniqueName('Writer'),
    });
    expect(agent.status).toBe(201);
    agentId = agent.body.id;
    person = await memberWithKey(space.body.id, 'parts');
    other = await memberWithKey(space.body.id, 'other');
    const sdk = new OpenAI({ baseURL: `${api.url}/api/compat/v1`, apiKey: person.key, maxRetries: 0 });
    for (const content of ['hello there', 'and once more'])
      await sdk.chat.completions.create({ model: 'offline-chat', messages: [{ role: 'user', content }] });
    const turn = await client(api.url, person.key).post(`${CORE}/llm/${agentId}/conversation`, {
      message: 'What is a volcano?',
    });
    expect(turn.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await api.close();
    expect(api.logs()).not.toContain('unhandled error');
  });

  /** The person's answer once every call is recorded and the split adds up to the report. */
  async function settled(by: 'model' | 'agent', key = person.key, subject = ''): Promise<Answer> {
    let answer: Answer | null = null;
    await waitUntil(async () => {
      const reply = await client(api.url, key).get<Answer>(`${CORE}/usage?dimension=user&by=${by}${subject}`);
      expect(reply.status).toBe(200);
      answer = reply.body;
      const agentCalls = by === 'agent' ? 2 : 0; // the compatible API's calls have no Agent
      return (
        answer.totals.calls >= 3 && sum(answer.parts ?? [], 'calls') + agentCalls === answer.totals.calls
      );
    }, 10_000);
    return answer!;
  }

  it("splits one's own usage by model: every call in its model's part, the parts adding up to the totals", async () => {
    const answer = await settled('model');
    expect(answer.subject).toBe(person.id);
    expect(answer.by).toBe('model');
    const parts = answer.parts!;
    expect(parts.map((part) => part.key)).toContain('offline-chat');
    expect(sum(parts, 'inputTokens')).toBe(answer.totals.inputTokens);
    expect(sum(parts, 'outputTokens')).toBe(answer.totals.outputTokens);
    expect(sum(parts, 'costUsd')).toBeCloseTo(answer.totals.costUsd, 9);
    for (const part of parts) {
      // Each part's days and its included/billable records carry its totals.
      expect(part.days.reduce((total, day) => total + day.calls, 0)).toBe(part.totals.calls);
      expect(part.records.reduce((total, record) => total + record.calls, 0)).toBe(part.totals.calls);
      const billable = part.records.filter((record) => !record.isIncludedUsage);
      expect(billable.reduce((total, record) => total + record.costUsd, 0)).toBeCloseTo(
        part.totals.billableCostUsd,
        9,
      );
    }
  });

  it("splits one's own usage by Agent: the turn's calls in the Agent's part, the compatible API's in none", async () => {
    const answer = await settled('agent');
    expect(answer.parts!.map((part) => part.key)).toEqual([agentId]);
    expect(answer.parts![0]!.totals.calls).toBe(answer.totals.calls - 2);
    expect(answer.parts![0]!.totals.calls).toBeGreaterThanOrEqual(1);
  });

  it("another person's split: 403 for a non-admin, the same figures for an admin", async () => {
    const refused = await client(api.url, other.key).get<{ error: { code: string } }>(
      `${CORE}/usage?dimension=user&by=model&subject=${person.id}`,
    );
    expect([refused.status, refused.body.error.code]).toEqual([403, 'usage_access_denied']);
    const own = await settled('model');
    const asked = await admin().get<Answer>(`${CORE}/usage?dimension=user&by=model&subject=${person.id}`);
    expect(asked.status).toBe(200);
    expect(asked.body.parts).toEqual(own.parts);
    // The other person made no call: their own split is empty.
    const theirs = await client(api.url, other.key).get<Answer>(`${CORE}/usage?dimension=user&by=agent`);
    expect([theirs.status, theirs.body.parts]).toEqual([200, []]);
  });

  it('the OpenAPI document describes `by` and the parts', async () => {
    const document = await client(api.url, null).get<{
      paths: Record<
        string,
        { get: { parameters: { name: string; schema: { description?: string; enum?: string[] } }[] } }
      >;
    }>(`${CORE}/openapi.json`);
    expect(document.status).toBe(200);
    const by = document.body.paths[`${CORE}/usage`]!.get.parameters.find(
      (parameter) => parameter.name === 'by',
    );
    expect(by?.schema.enum).toEqual(['model', 'agent']);
    expect(by?.schema.description).toContain('split the range by model or by Agent');
    expect(JSON.stringify(document.body)).toContain('per model or per Agent, most costly first');
  });

  it('a bad `by`, or `by` with another dimension than user, is a 400 naming it', async () => {
    for (const query of ['dimension=user&by=day', 'dimension=apiKey&by=model']) {
      const reply = await client(api.url, person.key).get<{
        error: { code: string; param: string; type: string };
      }>(`${CORE}/usage?${query}`);
      expect([reply.status, reply.body.error.code, reply.body.error.param, reply.body.error.type]).toEqual([
        400,
        'invalid_field',
        'by',
        'invalid_request_error',
      ]);
    }
  });
});
