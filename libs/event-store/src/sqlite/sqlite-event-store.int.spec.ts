import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeEvent, uniqueStream } from '#testing/fixtures';
import { eventStoreContract } from '../event-store.contract.js';
import { UpcasterRegistry } from '../upcasters.js';
import { SqliteEventStore } from './sqlite-event-store.js';

eventStoreContract('sqlite (:memory:)', async () => new SqliteEventStore({ path: ':memory:' }));
eventStoreContract(
  'sqlite (WAL file)',
  async () => new SqliteEventStore({ path: join(mkdtempSync(join(tmpdir(), 'es-')), 'events.db') }),
);

describe('SqliteEventStore specifics', () => {
  it('keeps events across a reopen of the same file, including idempotency of old batches', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'es-')), 'events.db');
    const stream = uniqueStream();
    const batch = [makeEvent('A')];
    const first = new SqliteEventStore({ path });
    const appended = await first.appendToStream(stream, batch, 'no_stream');
    await first.close();
    const second = new SqliteEventStore({ path });
    expect((await second.readStream(stream)).map((e) => e.type)).toEqual(['A']);
    expect((await second.appendToStream(stream, batch, 'no_stream')).positions).toEqual(appended.positions);
    await second.close();
  });

  it('runs registered upcasters on read, leaving the stored JSON as it was', async () => {
    const upcasters = new UpcasterRegistry().register({
      eventType: 'NameGiven',
      fromVersion: 1,
      upcast: (data) => ({ fullName: (data as { name: string }).name }),
    });
    const store = new SqliteEventStore({ path: ':memory:', upcasters });
    const stream = uniqueStream();
    await store.appendToStream(stream, [makeEvent('NameGiven', { name: 'Ada' })], 'no_stream');
    const [event] = await store.readStream(stream);
    expect(event!.data).toEqual({ fullName: 'Ada' });
    expect(event!.metadata.schemaVersion).toBe(2);
    await store.close();
  });
});
