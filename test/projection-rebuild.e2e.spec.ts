// An admin rebuilds a projection over HTTP (the Operations page's button): the request is an event with who asked
// (the audit trail lists it), the runner builds a new generation and switches readers to it, and the read model
// answers as before. A second request while one is under way records nothing; an unknown name is 404; a person who
// is no admin is refused (the authorization matrix covers every principal).
import { waitUntil } from '#testing/fixtures';
import { client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';

interface Health {
  readonly projections: readonly {
    readonly name: string;
    readonly liveGeneration: number | null;
    readonly rebuilding: unknown;
  }[];
}

describe('rebuilding a projection over HTTP (e2e)', () => {
  let api: TestApi;
  let admin: ReturnType<typeof client>;
  beforeAll(async () => {
    api = await startTestApi();
    admin = client(api.url);
  });
  afterAll(() => api.close());

  const agentsProjection = async () =>
    (await admin.get<Health>('/health')).body.projections.find((p) => p.name === 'agents')!;

  it('records who asked, switches to a new generation, and the read model answers as before', async () => {
    const space = await admin.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Rebuilt') });
    const agent = await admin.post<{ id: string }>(`${CORE}/agents`, {
      name: 'Kept across the rebuild',
      spaceId: space.body.id,
    });
    expect(agent.status).toBe(201);
    await waitUntil(async () => (await agentsProjection()).liveGeneration !== null, 10_000);
    const before = (await agentsProjection()).liveGeneration!;

    const requested = await admin.post<{ projection: string; outcome: string }>(
      `${CORE}/projections/agents/rebuild`,
      {},
    );
    expect(requested.status).toBe(202);
    expect(requested.body).toEqual({ projection: 'agents', outcome: 'requested' });

    await waitUntil(async () => {
      const now = await agentsProjection();
      return now.liveGeneration !== before && now.rebuilding === null;
    }, 20_000);
    const read = await admin.get<{ name: string }>(`${CORE}/agents/${agent.body.id}`);
    expect(read.body.name).toBe('Kept across the rebuild');

    const trail = await admin.get<{ data: Record<string, unknown>[] }>(
      `${CORE}/audit?resourceType=projection&action=ProjectionRebuildRequested`,
    );
    expect(trail.body.data).toEqual([
      expect.objectContaining({
        eventType: 'ProjectionRebuildRequested',
        action: 'requested a rebuild of a projection',
        resource: expect.objectContaining({ type: 'projection', id: 'agents' }),
        credentialKind: 'adminApiKey',
      }),
    ]);
  });

  it('answers 404 for a projection no projector has, and refuses a person who is no admin', async () => {
    const unknown = await admin.post<{ error: { code: string } }>(`${CORE}/projections/nothing/rebuild`, {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('projection_not_found');

    const key = await admin.post<{ key: string }>(`${CORE}/api-keys`, {
      name: uniqueName('member key'),
      owner: { email: `member-${Date.now()}@example.com` },
      agents: 'all',
    });
    const refused = await client(api.url, key.body.key).post<{ error: { code: string } }>(
      `${CORE}/projections/agents/rebuild`,
      {},
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('admin_required');
  });
});
