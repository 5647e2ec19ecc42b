// Benchmark: one GET /audit page folded from the log (AuditTrail, what the route did before) against the same page
// from the audit read model (AuditEntriesReader + redaction, what it does now), over a SQLite log of N events (Spaces,
// Agents changed, memories sealed, model-call usage), and the time the audit projector takes to build the read model.
// Run: npm run build && node dist/bench/audit-trail.js [events=20000]
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { NewEvent } from '#kernel';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { SqliteReadStore } from '#read-store/sqlite/sqlite-read-store';
import { SqliteKeyStore } from '#key-store/sqlite/sqlite-key-store';
import { ProjectionRunner } from '#eventsourcing';
import { AuditEntriesReader, AuditTrail, type AuditFilters } from '#audit';
import { auditProjector } from '#projections/audit/audit.projector';
import { makeTempDir, median } from './util.js';

const total = Number(process.argv[2] ?? 20000);

const event = (type: string, data: unknown): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: {
    correlationId: randomUUID(),
    causationId: null,
    actor: { kind: 'apiKey', id: 'key_bench' },
    occurredAt: new Date().toISOString(),
    schemaVersion: 1,
  },
});

async function seed(store: SqliteEventStore): Promise<void> {
  await store.appendToStream(
    'api-key-key_bench',
    [event('ApiKeyIssued', { apiKeyId: 'key_bench', ownerUserId: 'usr_bench', isAdmin: true })],
    'any',
  );
  let written = 1;
  for (let space = 0; written < total; space++) {
    const spaceId = `spc_${space}`;
    await store.appendToStream(
      spaceId.replace('spc_', 'space-spc_'),
      [event('SpaceCreated', { spaceId, name: 'S' })],
      'any',
    );
    written++;
    for (let agent = 0; agent < 10 && written < total; agent++) {
      const agentId = `agt_${space}_${agent}`;
      const batch: NewEvent[] = [event('AgentCreated', { agentId, spaceId, name: 'A', systemPrompt: 'p0' })];
      for (let change = 1; change < 10; change++)
        batch.push(event('AgentSystemPromptChanged', { agentId, systemPrompt: `p${change}` }));
      await store.appendToStream(`agent-${agentId}`, batch, 'any');
      const memories = Array.from({ length: 10 }, (_, i) =>
        event('MemoryAdded', { memoryId: `mem_${space}_${agent}_${i}`, text: `sealed:v1:k${i}:iv:tag:ct` }),
      );
      await store.appendToStream(`memory-bucket-${agentId}-usr_bench`, memories, 'any');
      const calls = Array.from({ length: 20 }, () =>
        event('ModelCallRecorded', { callId: randomUUID(), agentId, inputTokens: 10, outputTokens: 5 }),
      );
      await store.appendToStream(`usage-key_bench-${agentId}`, calls, 'any');
      written += 40;
    }
  }
}

async function time(run: () => Promise<unknown>, runs = 5): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

async function main(): Promise<void> {
  const dir = makeTempDir('audit-bench-');
  const path = (file: string) => join(dir.path, file);
  const events = new SqliteEventStore({ path: path('events.db') });
  const reads = new SqliteReadStore({ path: path('reads.db') });
  const keys = new SqliteKeyStore({ path: path('keys.db') });
  await seed(events);
  const head = await events.headPosition();
  const runner = new ProjectionRunner(events, reads, [auditProjector], { owner: 'bench', batchSize: 500 });
  const started = performance.now();
  runner.start();
  await runner.caughtUp(600_000);
  const buildSeconds = (performance.now() - started) / 1000;
  await runner.stop();
  const trail = new AuditTrail(events, keys);
  const reader = new AuditEntriesReader(reads);
  const cases: [string, AuditFilters][] = [
    ['newest page', { limit: 50 }],
    ['a Space and what is inside it', { resourceId: 'spc_3', limit: 50 }],
    ['an Agent, action words', { resourceId: 'agt_2_4', action: 'prompt', limit: 50 }],
    ['an actor, oldest', { actorId: 'usr_bench', order: 'oldest', limit: 50 }],
  ];
  console.log(`log: ${head} events; audit read model built in ${buildSeconds.toFixed(1)} s`);
  for (const [name, filters] of cases) {
    const folded = await time(() => trail.page(filters), 3);
    const projected = await time(async () => trail.redact((await reader.page(filters)).entries));
    console.log(`${name}: fold ${folded.toFixed(0)} ms, read model ${projected.toFixed(1)} ms`);
  }
  await Promise.all([events.close(), reads.close(), keys.close()]);
  dir.remove();
}

await main();
