// Test fixtures shared by unit, contract and end-to-end specs.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import type { EventEnvelope, NewEvent } from '#kernel';
import { UpcasterRegistry } from '#event-store';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { SqliteReadStore } from '#read-store/sqlite/sqlite-read-store';

/** Upcasters that count the events they see: every event read from the log passes through them once. */
export class CountingUpcasters extends UpcasterRegistry {
  parsed = 0;
  override upcast<E extends EventEnvelope>(event: E): E {
    this.parsed++;
    return super.upcast(event);
  }
}

export const uniqueStream = (prefix = 'test'): string => `${prefix}-${randomUUID().replace(/-/g, '')}`;

export const makeEvent = (type: string, data: unknown = {}, id: string = randomUUID()): NewEvent => ({
  id,
  type,
  data,
  metadata: {
    correlationId: randomUUID(),
    causationId: null,
    actor: { kind: 'user', id: 'usr_test' },
    occurredAt: new Date().toISOString(),
    schemaVersion: 1,
  },
});

/** Prints why a suite does not run, so a skipped suite is never silent. */
export function skipWithReason(suite: string, reason: string): void {
  process.stdout.write(`SKIP ${suite}: ${reason}\n`);
}

export const waitUntil = async (
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** An event store and a read store in memory, polling fast: what an int spec of projectors runs over. */
export const inMemoryStores = () => ({
  events: new SqliteEventStore({ path: ':memory:', pollIntervalMs: 10 }),
  reads: new SqliteReadStore({ path: ':memory:', generationCacheMs: 0 }),
});

/** A TCP port free on loopback right now (for a server a test starts). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
