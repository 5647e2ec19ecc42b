// The integration-event relay killed mid-publish (issue 25 §5): a relay process (test/support/relay-process.js, the
// build's relay with the platform's maps) is SIGKILLed after it has had part of a batch acknowledged by Kafka
// (librdkafka's mock cluster, through kafkajs) but before it stored that batch's checkpoint. A new relay process picks
// up from the checkpoint: every mapped event of the log reaches the consumer at least once, and each duplicate carries
// the same id and the same content, so a consumer de-duplicating by id sees every event exactly once.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import type { NewEvent } from '#kernel';
import type { BusMessage } from '#message-bus';
import { KafkaMessageBus } from '#message-bus/kafka/kafka-message-bus';
import { skipWithReason, waitUntil } from '#testing/fixtures';
import { startKafkaMockCluster } from '#testing/kafka-mock-cluster';
import { stopProcess } from './support/process.js';
import { tempDir } from './support/temp-dir.js';

const RELAY = join(process.cwd(), 'test/support/relay-process.js');
const DEADLINE_MS = 60_000;
const AGENTS = 120;

const event = (type: string, data: unknown, correlationId = randomUUID()): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: {
    correlationId,
    causationId: null,
    actor: { kind: 'user', id: 'usr_admin' },
    occurredAt: new Date().toISOString(),
    schemaVersion: 1,
  },
});

const agentCreated = (agentId: string) =>
  event('AgentCreated', {
    agentId,
    name: `Agent ${agentId}`,
    model: 'offline/chat',
    systemPrompt: 'You help.',
    temperature: null,
    topP: null,
    topK: null,
    memoryEnabled: false,
    sharedMemoryEnabled: false,
    isPublic: false,
    allowedUrls: [],
    embedSessionMinutes: 60,
    embedWindowTitle: 'Chat',
    knowledgeEnabled: true,
    includeAiSummary: false,
    spaceId: 'spc_crash',
    isPersonal: false,
    ownerUserId: null,
  });

const mock = await startKafkaMockCluster();

if ('unavailable' in mock) {
  const suite = 'integration-event relay crash (kafka mock cluster)';
  skipWithReason(suite, mock.unavailable);
  it(`${suite} did not run: ${mock.unavailable}`, () => expect(mock.unavailable).toBeTruthy());
} else {
  const children: ChildProcess[] = [];
  afterAll(async () => {
    await Promise.all(children.map((child) => stopProcess(child, 'SIGKILL')));
    await mock.stop();
  });

  /** Starts a relay process; its stdout lines, as they come. */
  const relay = (dataDir: string, extra: Record<string, string> = {}) => {
    const child = spawn(process.execPath, ['--no-warnings', RELAY], {
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: dataDir,
        KAFKA_BROKERS: mock.brokers.join(','),
        ...extra,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const lines: string[] = [];
    let partial = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop()!;
      lines.push(...parts);
    });
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    return { child, lines, errors: () => errors };
  };

  describe('integration-event relay killed mid-publish (separate process, kafka mock cluster)', () => {
    it('loses nothing: after a restart every event arrives at least once, duplicates with the same id', async () => {
      const dataDir = tempDir('agent-platform-relay-');
      const store = new SqliteEventStore({ path: join(dataDir, 'events.sqlite') });
      const mapped: NewEvent[] = [];
      for (let i = 0; i < AGENTS; i++) {
        const agentId = `agt_${randomUUID().slice(0, 8)}`;
        const created = agentCreated(agentId);
        // A setting's value never leaves: the prompt change is published as "systemPrompt changed".
        const prompt = event('AgentSystemPromptChanged', { agentId, systemPrompt: `secret prompt ${i}` });
        mapped.push(created, prompt);
        await store.appendToStream(`agent-${agentId}`, [created, prompt], 'no_stream');
        // Something no context publishes, between them.
        await store.appendToStream(
          `noise-${agentId}`,
          [event('ModelCallRecorded', { agentId })],
          'no_stream',
        );
      }
      await store.close();

      const consumerBus = new KafkaMessageBus({
        brokers: mock.brokers,
        clientId: 'relay-crash-consumer',
        sessionTimeoutMs: 3_000,
        log: () => undefined,
      });
      const received: BusMessage[] = [];
      const consumer = await consumerBus.consume({
        topic: 'agent-platform.agent.v1',
        group: `crash-consumer-${randomUUID().slice(0, 8)}`,
        handle: async (message) => void received.push(message),
      });

      try {
        // First relay: killed after 70 acknowledgements, in the middle of a batch (50 log events hold 33 or 34 mapped).
        const first = relay(dataDir, { HANG_AFTER: '70' });
        await waitUntil(() => first.lines.includes('hanging') || first.child.exitCode !== null, DEADLINE_MS);
        expect(first.errors()).toBe('');
        const ackedBeforeKill = first.lines.filter((l) => l.startsWith('acked ')).map((l) => l.slice(6));
        expect(ackedBeforeKill).toHaveLength(70);
        await stopProcess(first.child, 'SIGKILL');
        expect(first.lines.some((l) => l.startsWith('caught-up'))).toBe(false);

        // Second relay: from the stored checkpoint to the head.
        const second = relay(dataDir);
        await waitUntil(() => second.lines.some((l) => l.startsWith('caught-up')), DEADLINE_MS);
        const ids = new Set(mapped.map((e) => e.id));
        await waitUntil(() => new Set(received.map((m) => m.id)).size >= ids.size, DEADLINE_MS);

        // Nothing lost, nothing else.
        expect(new Set(received.map((m) => m.id))).toEqual(ids);
        // The acknowledged but uncheckpointed part of the killed batch came again: same id, same content.
        const duplicates = received.filter((m, i) => received.findIndex((n) => n.id === m.id) !== i);
        expect(duplicates.length).toBeGreaterThan(0);
        for (const duplicate of duplicates) {
          expect(ackedBeforeKill).toContain(duplicate.id);
          expect(received.find((m) => m.id === duplicate.id)).toEqual(duplicate);
        }
        // A consumer de-duplicating by id sees each event once, in its stream's order.
        const seen = new Set<string>();
        const deduplicated = received.filter((m) => !seen.has(m.id) && seen.add(m.id));
        expect(deduplicated).toHaveLength(mapped.length);
        for (const key of new Set(deduplicated.map((m) => m.key)))
          expect(deduplicated.filter((m) => m.key === key).map((m) => m.type)).toEqual([
            'agent.created.v1',
            'agent.settings-changed.v1',
          ]);
        expect(JSON.stringify(received)).not.toContain('secret prompt');
        await stopProcess(second.child);
      } finally {
        await consumer.stop();
        await consumerBus.close();
      }
    });
  });
}
