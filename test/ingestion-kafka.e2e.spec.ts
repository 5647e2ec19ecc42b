// Scaled out over Kafka: two worker processes share the ingestion jobs through a Kafka consumer group (librdkafka's
// mock cluster on 127.0.0.1, a real Kafka-protocol broker), the api runs no projections. Every document ends Ready
// exactly once, and both workers worked some of them.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { skipWithReason } from '#testing/fixtures';
import { startKafkaMockCluster } from '#testing/kafka-mock-cluster';
import { ADMIN_KEY, client, CORE, tempDataDir } from './support/api.js';
import { freePort, spawnApi, stopProcess } from './support/process.js';

type Health = {
  ingestion?: {
    consuming: boolean;
    partitions: number[];
    assignedAt: string | null;
    jobsReceived: number;
    jobsWorked: number;
  };
};

const mock = await startKafkaMockCluster();

async function startWorker(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(process.cwd(), 'dist/apps/worker/src/main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      WORKER_PORT: String(port),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, port, output: () => output };
}

const health = async (port: number): Promise<Health | null> =>
  fetch(`http://127.0.0.1:${port}/health`).then(
    (response) => response.json() as Promise<Health>,
    () => null,
  );

if ('unavailable' in mock) {
  const suite = 'ingestion over Kafka (librdkafka mock cluster)';
  skipWithReason(suite, mock.unavailable);
  it(`${suite} did not run: ${mock.unavailable}`, () => expect(mock.unavailable).toBeTruthy());
} else {
  afterAll(() => mock.stop());

  describe('scaled out: ingestion jobs shared by two workers over Kafka (e2e)', () => {
    it('processes every document once, on both workers', async () => {
      const dataDir = tempDataDir();
      const env = {
        DATA_DIR: dataDir,
        ADMIN_API_KEY: ADMIN_KEY,
        MESSAGE_BUS: 'kafka',
        KAFKA_BROKERS: mock.brokers.join(','),
        // Long enough that heartbeats delayed by a loaded machine (CI runs two suites at once) do not make the group
        // rebalance mid-test, which handed every job to one worker (26/0 seen once in CI).
        KAFKA_SESSION_TIMEOUT_MS: '8000',
      };
      // The second worker joins once the first is in the group: its join rebalances the partitions over both.
      const workers: Awaited<ReturnType<typeof startWorker>>[] = [];
      try {
        for (const id of ['worker-a', 'worker-b']) {
          const worker = await startWorker({ ...env, WORKER_ID: id });
          workers.push(worker);
          let consuming: boolean | undefined;
          for (let i = 0; i < 600 && !consuming; i++) {
            consuming = (await health(worker.port))?.ingestion?.consuming;
            if (!consuming) await new Promise((resolve) => setTimeout(resolve, 50));
          }
          if (!consuming) process.stderr.write(`${id} output:\n${worker.output()}\n`);
          expect(consuming).toBe(true);
        }

        // …and the group has settled: each holds partitions of the jobs topic, none assigned in the last 4 s (the
        // mock cluster rebalances a group for up to its session timeout, 8 s here, after a member comes or goes).
        let held: { partitions: number[]; assignedAt: string | null }[] = [];
        const settled = () => {
          const all = held.flatMap((state) => state.partitions);
          const last = Math.max(...held.map((state) => Date.parse(state.assignedAt ?? '') || Date.now()));
          return (
            held.every((state) => state.partitions.length > 0) &&
            new Set(all).size === all.length &&
            Date.now() - last > 9_000
          );
        };
        for (let i = 0; i < 600 && !settled(); i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          held = (await Promise.all(workers.map((worker) => health(worker.port)))).map((state) => ({
            partitions: state?.ingestion?.partitions ?? [],
            assignedAt: state?.ingestion?.assignedAt ?? null,
          }));
        }
        expect(settled()).toBe(true);

        const api = await spawnApi({ ...env, RUN_PROJECTIONS: 'false' });
        try {
          const admin = client(api.url);
          const space = (await admin.post<{ id: string }>(`${CORE}/spaces`, { name: 'Kafka' })).body;
          const agent = (await admin.post<{ id: string }>(`${CORE}/agents`, { spaceId: space.id, name: 'R' }))
            .body;
          const ids: string[] = [];
          for (let n = 0; n < 24; n++) {
            const doc = await admin.post<{ id: string }>(`${CORE}/knowledge/${agent.id}/documents`, {
              name: `note-${n}.md`,
              text: `# Note ${n}\n\nShift ${n} starts at ${n % 12} o'clock in hall ${n}.`,
            });
            expect(doc.status).toBe(201);
            ids.push(doc.body.id);
          }
          const ready = new Set<string>();
          for (let i = 0; i < 600 && ready.size < ids.length; i++) {
            const page = await admin.get<{ data: { id: string; status: string }[] }>(
              `${CORE}/knowledge/${agent.id}/documents?scope=agent&limit=100`,
            );
            for (const doc of page.body.data) if (doc.status === 'Ready') ready.add(doc.id);
            if (ready.size < ids.length) await new Promise((resolve) => setTimeout(resolve, 50));
          }
          if (ready.size < ids.length) {
            // What a run that did not finish leaves to look at: the documents not Ready, each one's log, and where
            // the workers stood (their partitions, and the end of their output).
            for (const id of ids.filter((id) => !ready.has(id))) {
              const log = await admin.get(`${CORE}/knowledge/${agent.id}/documents/${id}/log`);
              process.stderr.write(`not Ready: ${id} ${JSON.stringify(log.body)}\n`);
            }
            for (const worker of workers)
              process.stderr.write(
                `worker :${worker.port} ${JSON.stringify((await health(worker.port))?.ingestion)}\n` +
                  `${worker.output().slice(-3000)}\n`,
              );
          }
          expect(ready.size).toBe(ids.length);

          // Each document was made Ready once: no job ran twice to completion.
          for (const id of ids) {
            const log = await admin.get<{ entries: { event: string }[] }>(
              `${CORE}/knowledge/${agent.id}/documents/${id}/log`,
            );
            expect(log.body.entries.filter((entry) => entry.event === 'DocumentReady')).toHaveLength(1);
          }
          const hits = await admin.post<{ hits: { documentId: string }[] }>(
            `${CORE}/knowledge/${agent.id}/search`,
            { query: 'hall 17' },
          );
          expect(hits.body.hits[0]?.documentId).toBe(ids[17]);

          const stats = await Promise.all(workers.map((worker) => health(worker.port)));
          const worked = stats.map((state) => state?.ingestion?.jobsWorked ?? 0);
          if (!worked.every((count) => count > 0))
            process.stderr.write(
              `worked ${worked.join('/')}\n${workers.map((w) => w.output()).join('\n')}\n`,
            );
          expect(worked.every((count) => count > 0)).toBe(true);
          expect(worked.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(ids.length);
        } finally {
          await stopProcess(api.child);
        }
      } finally {
        for (const worker of workers) await stopProcess(worker.child);
      }
      for (const worker of workers) expect(worker.output()).not.toContain('"level":50');
    }, 90_000);
  });
}
