// Chooses the event store from configuration: KurrentDB when configured, else the embedded SQLite log under the data
// directory. The KurrentDB adapter (and its client) load only when chosen.
import { join } from 'node:path';
import type { PlatformConfig } from '#kernel';
import type { EventStore } from './event-store.port.js';
import { SqliteEventStore } from './sqlite/sqlite-event-store.js';
import type { UpcasterRegistry } from './upcasters.js';

export type EventStoreConfig = Pick<PlatformConfig, 'eventStore' | 'kurrentDbUrl' | 'dataDir'>;

export async function openEventStore(
  config: EventStoreConfig,
  upcasters: UpcasterRegistry,
): Promise<EventStore> {
  if (config.eventStore === 'kurrentdb') {
    const { KurrentDbEventStore } = await import('./kurrentdb/kurrentdb-event-store.js');
    return new KurrentDbEventStore({ connectionString: config.kurrentDbUrl!, upcasters });
  }
  return new SqliteEventStore({ path: join(config.dataDir, 'events.db'), upcasters });
}
