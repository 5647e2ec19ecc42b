// The data directory is private to the platform's user: every file the platform creates under DATA_DIR is 0600 and
// every folder 0700 (the SQLite files with their -wal and -shm, blobs, the saved BM25 postings), both in-process (this
// test runner's umask lets a default mode through, so the writers' own modes are what is checked) and as the api's
// own process; and a data dir an earlier version left world-readable is tightened when the api starts.
import { chmodSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IngestionWorker } from '#knowledge/ingestion.worker';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { ADMIN_KEY, client, CORE, startTestApi, tempDataDir, uniqueName } from './support/api.js';
import { spawnApi, stopProcess } from './support/process.js';

/** Every file and folder under `root` (the root included) whose mode is not 0600 for a file, 0700 for a folder. */
function notPrivate(root: string): string[] {
  const found: string[] = [];
  const visit = (path: string) => {
    const stats = lstatSync(path);
    const mode = stats.mode & 0o777;
    if (stats.isDirectory()) {
      if (mode !== 0o700) found.push(`${path} ${mode.toString(8)}`);
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (mode !== 0o600) found.push(`${path} ${mode.toString(8)}`);
  };
  visit(root);
  return found;
}

/** Paths of every regular file under `root`, relative to it. */
const filesUnder = (root: string, at = ''): string[] =>
  readdirSync(join(root, at), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(root, join(at, entry.name)) : [join(at, entry.name)],
  );

type Client = ReturnType<typeof client>;

/** A Space, an Agent, a Knowledge document taken to Ready, a search and a conversation turn. */
async function writeSomething(api: Client, settle: () => Promise<void>): Promise<void> {
  const space = await api.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Private') });
  expect(space.status).toBe(201);
  const agent = await api.post<{ id: string }>(`${CORE}/agents`, { spaceId: space.body.id, name: 'Keeper' });
  expect(agent.status).toBe(201);
  const knowledge = `${CORE}/knowledge/${agent.body.id}`;
  const document = await api.post<{ id: string }>(`${knowledge}/documents`, {
    name: 'payroll.md',
    text: '# Payroll\n\nSalaries are paid on the 25th of each month by bank transfer.',
  });
  expect(document.status).toBe(201);
  for (let i = 0; i < 400; i++) {
    await settle();
    const read = await api.get<{ status: string }>(`${knowledge}/documents/${document.body.id}`);
    if (read.body.status === 'Ready') break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect((await api.post(`${knowledge}/search`, { query: 'salaries bank transfer' })).status).toBe(200);
  const turn = await api.post(`${CORE}/llm/${agent.body.id}/conversation`, {
    message: 'When are salaries paid?',
  });
  expect(turn.status).toBe(201);
}

describe('DATA_DIR permissions (e2e)', () => {
  it('creates every file 0600 and every folder 0700 in a fresh data dir, in-process', async () => {
    const dataDir = join(tempDataDir(), 'data');
    const api = await startTestApi({ DATA_DIR: dataDir });
    try {
      await writeSomething(client(api.url), () => api.app.get(IngestionWorker).idle());
    } finally {
      await api.close();
    }
    expect(filesUnder(dataDir)).toEqual(
      expect.arrayContaining([
        'events.db',
        'read.db',
        'keys.db',
        'search.db',
        expect.stringMatching(/^blobs\//),
      ]),
    );
    expect(notPrivate(dataDir)).toEqual([]);
  });

  it('tightens a data dir an earlier version left world-readable, and the api process keeps it private', async () => {
    const dataDir = tempDataDir();
    chmodSync(dataDir, 0o755);
    // An earlier version's event log, with its write-ahead log, and a blob folder, all readable by everyone.
    const earlier = new SqliteEventStore({ path: join(dataDir, 'events.db') });
    await earlier.close();
    mkdirSync(join(dataDir, 'blobs', 'ab'), { recursive: true, mode: 0o755 });
    writeFileSync(join(dataDir, 'blobs', 'ab', 'sha256-ab'), 'old bytes', { mode: 0o644 });
    for (const path of ['events.db', 'blobs', 'blobs/ab'])
      chmodSync(join(dataDir, path), path === 'events.db' ? 0o644 : 0o755);
    expect(notPrivate(dataDir)).not.toEqual([]);

    const api = await spawnApi({ DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY });
    try {
      await writeSomething(client(api.url), async () => undefined);
    } finally {
      await stopProcess(api.child);
    }
    expect(notPrivate(dataDir)).toEqual([]);
    // The operator is told how many entries changed (never their names or contents).
    expect(api.output()).toContain('removed group and other access from DATA_DIR');
  }, 60_000);
});
