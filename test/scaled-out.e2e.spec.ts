// Scaled out on one machine: a worker process runs the projectors and Knowledge ingestion, the api runs none
// (RUN_PROJECTIONS=false); a document added through the api is processed by the worker and searchable through the api.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ADMIN_KEY, client, CORE, tempDataDir } from './support/api.js';
import { freePort, spawnApi, stopProcess } from './support/process.js';

describe('scaled out: api and worker as separate processes (e2e)', () => {
  it('ingests in the worker and searches through the api', async () => {
    const dataDir = tempDataDir();
    const workerPort = await freePort();
    const worker = spawn(process.execPath, [join(process.cwd(), 'dist/apps/worker/src/main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        ADMIN_API_KEY: ADMIN_KEY,
        WORKER_PORT: String(workerPort),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let workerOutput = '';
    worker.stdout!.on('data', (chunk: Buffer) => (workerOutput += chunk.toString()));
    worker.stderr!.on('data', (chunk: Buffer) => (workerOutput += chunk.toString()));
    try {
      for (let i = 0; i < 200; i++) {
        const up = await fetch(`http://127.0.0.1:${workerPort}/health`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (up) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const api = await spawnApi({ DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY, RUN_PROJECTIONS: 'false' });
      try {
        const admin = client(api.url);
        const space = (await admin.post<{ id: string }>(`${CORE}/spaces`, { name: 'Scaled' })).body;
        const agent = (await admin.post<{ id: string }>(`${CORE}/agents`, { spaceId: space.id, name: 'R' }))
          .body;
        const doc = (
          await admin.post<{ id: string }>(`${CORE}/knowledge/${agent.id}/documents`, {
            name: 'ops.md',
            text: '# Operations\n\nThe night shift starts at ten.',
          })
        ).body;
        let status = '';
        for (let i = 0; i < 300 && status !== 'Ready'; i++) {
          status = (await admin.get<{ status: string }>(`${CORE}/knowledge/${agent.id}/documents/${doc.id}`))
            .body.status;
          if (status !== 'Ready') await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(status).toBe('Ready');
        const hits = await admin.post<{ hits: { documentId: string }[] }>(
          `${CORE}/knowledge/${agent.id}/search`,
          {
            query: 'night shift',
          },
        );
        expect(hits.body.hits[0]?.documentId).toBe(doc.id);
      } finally {
        await stopProcess(api.child);
      }
    } finally {
      await stopProcess(worker);
    }
    expect(workerOutput).not.toContain('"level":50');
  });
});
