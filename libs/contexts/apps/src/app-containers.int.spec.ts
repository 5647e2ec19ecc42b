// Container Apps against a fake Docker Engine API on a unix socket (as the sandbox's own specs do): the request
// shapes (pull with the App's registry credentials as X-Registry-Auth, create with the port published on loopback,
// start, inspect), the address read back, and a missing Engine as an error (the App's lastError), nothing thrown.
import { createServer, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, SYSTEM_ACTOR } from '#kernel';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { AggregateRepository } from '#eventsourcing';
import { ContentCipher } from '#key-store';
import { SqliteKeyStore } from '#key-store/sqlite/sqlite-key-store';
import { AppContainers } from './app-containers.js';
import { AppCredentialsRepository } from './app-credentials.repository.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly auth: string | undefined;
  readonly body: string;
}

function fakeEngine(socketPath: string): Promise<{ seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = req.url ?? '';
      const auth = req.headers['x-registry-auth'];
      seen.push({
        method: req.method!,
        url,
        auth: typeof auth === 'string' ? auth : undefined,
        body: Buffer.concat(chunks).toString(),
      });
      const send = (status: number, value?: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(value === undefined ? undefined : JSON.stringify(value));
      };
      const path = url.split('?')[0]!;
      if (path === '/_ping') send(200, 'OK');
      else if (path === '/images/create') send(200, { status: 'pulled' });
      else if (req.method === 'DELETE') send(404, { message: 'no such container' });
      else if (path === '/containers/create') send(201, { Id: 'c0ffee' });
      else if (/\/start$/.test(path)) send(204);
      else if (/\/json$/.test(path))
        send(200, {
          NetworkSettings: { Ports: { '8080/tcp': [{ HostIp: '127.0.0.1', HostPort: '49153' }] } },
        });
      else send(404, { message: `fake: ${req.method} ${path}` });
    });
  });
  return new Promise((resolve) => server.listen(socketPath, () => resolve({ seen, server })));
}

describe('container Apps through the Docker Engine API', () => {
  const dir = mkdtempSync(join(tmpdir(), 'app-engine-'));
  const events = new SqliteEventStore({ path: ':memory:', pollIntervalMs: 10 });
  const keys = new SqliteKeyStore({ path: ':memory:' });
  const cipher = new ContentCipher(keys);
  const context = { actor: SYSTEM_ACTOR, correlationId: 'c1', now: () => new Date() };
  const build = (endpoint: string) => {
    const config = loadConfig({ DATA_DIR: dir, DOCKER_HOST: endpoint });
    const aggregates = new AggregateRepository(events, config);
    return {
      containers: new AppContainers(config, aggregates, cipher),
      credentials: new AppCredentialsRepository(aggregates, cipher, keys),
    };
  };

  it('pulls with the sealed registry credentials, publishes the port on loopback, and answers the address', async () => {
    const socket = join(dir, 'engine.sock');
    const engine = await fakeEngine(socket);
    const { containers, credentials } = build(`unix://${socket}`);
    await credentials.set('app_1', { username: 'bot', password: 'registry-secret' }, context);
    try {
      const outcome = await containers.start('app_1', 'registry.example/app:1', 8080);
      expect(outcome).toEqual({ containerId: 'c0ffee', upstreamUrl: 'http://127.0.0.1:49153' });
      const pull = engine.seen.find((r) => r.url.startsWith('/images/create'))!;
      expect(pull.url).toBe('/images/create?fromImage=registry.example%2Fapp%3A1');
      expect(JSON.parse(Buffer.from(pull.auth!, 'base64url').toString())).toEqual({
        username: 'bot',
        password: 'registry-secret',
      });
      const create = engine.seen.find((r) => r.url.startsWith('/containers/create'))!;
      expect(JSON.parse(create.body)).toMatchObject({
        Image: 'registry.example/app:1',
        ExposedPorts: { '8080/tcp': {} },
        Labels: { 'agent-platform.app': 'app_1' },
        HostConfig: {
          PortBindings: { '8080/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] },
          CapDrop: ['ALL'],
        },
      });
      expect(engine.seen.slice(0, 6).map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual([
        'GET /_ping',
        'POST /images/create',
        'DELETE /containers/agent-platform-app-app_1',
        'POST /containers/create',
        'POST /containers/agent-platform-app-app_1/start',
        'GET /containers/agent-platform-app-app_1/json',
      ]);
      // The credentials are in the log only sealed.
      const stored = JSON.stringify(await events.readStream('app-credentials-app_1'));
      expect(stored).not.toContain('registry-secret');
      // Removed (the App deleted): the key is destroyed, the image is pulled without credentials.
      await credentials.remove('app_1', context);
      await containers.start('app_1', 'registry.example/app:1', 8080);
      expect(engine.seen.filter((r) => r.url.startsWith('/images/create')).at(-1)!.auth).toBeUndefined();
      const [set] = await events.readStream('app-credentials-app_1');
      expect(await cipher.open((set!.data as { sealed: string }).sealed)).toBeNull();
    } finally {
      engine.server.closeAllConnections();
      engine.server.close();
      await containers.onModuleDestroy();
    }
  });

  it('without a reachable Engine: an error to record as lastError, nothing thrown', async () => {
    const { containers } = build(`unix://${join(dir, 'nothing-here.sock')}`);
    const outcome = await containers.start('app_2', 'example/app:1', 8080);
    expect(outcome).toEqual({ error: expect.stringMatching(/no container engine is reachable/) });
    await containers.onModuleDestroy();
  });
});
