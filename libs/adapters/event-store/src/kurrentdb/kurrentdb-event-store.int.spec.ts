// The KurrentDB adapter: the shared contract and its specifics against a server when KURRENTDB_URL is set, and the
// pure mappings (which need no server) always.
import { ANY, NO_STREAM, STREAM_EXISTS, WrongExpectedVersionError } from '@kurrent/kurrentdb-client';
import { WrongExpectedRevisionError } from '#kernel';
import { makeEvent, skipWithReason, uniqueStream } from '#testing/fixtures';
import { eventStoreContract } from '../event-store.contract.js';
import { UpcasterRegistry } from '../upcasters.js';
import {
  KurrentDbEventStore,
  isSystemEvent,
  toLogPosition,
  toReadPosition,
  toStreamState,
  toWrongExpectedRevision,
} from './kurrentdb-event-store.js';

const url = process.env.KURRENTDB_URL;

if (url) {
  eventStoreContract('kurrentdb', async () => new KurrentDbEventStore({ connectionString: url }));

  describe('KurrentDbEventStore specifics', () => {
    const upcasters = new UpcasterRegistry().register({
      eventType: 'NameGiven',
      fromVersion: 1,
      upcast: (data) => ({ fullName: (data as { name: string }).name }),
    });
    let store: KurrentDbEventStore;
    beforeAll(() => {
      store = new KurrentDbEventStore({ connectionString: url, upcasters });
    });
    afterAll(async () => {
      await store.close();
    });

    it('returns the positions the log reports, for single and multi-event batches', async () => {
      const head = await store.headPosition();
      const stream = uniqueStream();
      const single = await store.appendToStream(stream, [makeEvent('A')], 'no_stream');
      const batch = await store.appendToStream(
        stream,
        ['B', 'C', 'D'].map((t) => makeEvent(t)),
        0,
      );
      const appended = [...single.positions, ...batch.positions];
      expect(batch.position).toBe(batch.positions[2]);
      expect((await store.readStream(stream)).map((e) => e.position)).toEqual(appended);
      const logged = (await store.readAll({ after: head })).filter((e) => e.streamId === stream);
      expect(logged.map((e) => e.position)).toEqual(appended);
      expect(new Set(appended).size).toBe(4);
    });

    it('returns the original position of a re-sent single-event batch', async () => {
      const stream = uniqueStream();
      const event = makeEvent('A');
      const first = await store.appendToStream(stream, [event], 'no_stream');
      await store.appendToStream(stream, [makeEvent('B')], 0);
      expect(await store.appendToStream(stream, [event], 'no_stream')).toEqual(first);
      expect(await store.appendToStream(stream, [event], 'any')).toEqual(first);
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('keeps a batch re-sent with any a no-op', async () => {
      const stream = uniqueStream();
      const batch = [makeEvent('A'), makeEvent('B')];
      const first = await store.appendToStream(stream, batch, 'any');
      expect(await store.appendToStream(stream, batch, 'stream_exists')).toEqual(first);
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('runs registered upcasters on read', async () => {
      const stream = uniqueStream();
      await store.appendToStream(stream, [makeEvent('NameGiven', { name: 'Ada' })], 'no_stream');
      const [event] = await store.readStream(stream);
      expect(event!.data).toEqual({ fullName: 'Ada' });
      expect(event!.metadata.schemaVersion).toBe(2);
    });
  });
} else {
  skipWithReason(
    'EventStore contract: kurrentdb',
    'KURRENTDB_URL is not set (start KurrentDB, e.g. docker compose -f docker/compose.yml up kurrentdb, and set KURRENTDB_URL=kurrentdb://localhost:2113?tls=false)',
  );
}

describe('KurrentDbEventStore without a server', () => {
  it('is constructed from a connection string without connecting (the client connects lazily)', async () => {
    const store = new KurrentDbEventStore({ connectionString: 'kurrentdb://localhost:2113?tls=false' });
    expect(store).toBeInstanceOf(KurrentDbEventStore);
    await store.close();
  });

  it('maps every expected revision to the client stream state', () => {
    expect(toStreamState('any')).toBe(ANY);
    expect(toStreamState('no_stream')).toBe(NO_STREAM);
    expect(toStreamState('stream_exists')).toBe(STREAM_EXISTS);
    expect(toStreamState(0)).toBe(0n);
    expect(toStreamState(41)).toBe(41n);
    expect(() => toStreamState(-1)).toThrow(RangeError);
    expect(() => toStreamState(1.5)).toThrow(RangeError);
  });

  it('maps a wrong expected version to the typed conflict with the actual revision', () => {
    const atRevision = new WrongExpectedVersionError(undefined, {
      streamName: 's',
      expected: 3n,
      current: 5n,
    });
    const conflict = toWrongExpectedRevision('s', 3, atRevision);
    expect(conflict).toBeInstanceOf(WrongExpectedRevisionError);
    expect(conflict).toMatchObject({
      kind: 'conflict',
      code: 'wrong_expected_revision',
      streamId: 's',
      expected: 'revision 3',
      actual: 5,
    });

    const missing = new WrongExpectedVersionError(undefined, {
      streamName: 's',
      expected: STREAM_EXISTS,
      current: NO_STREAM,
    });
    expect(toWrongExpectedRevision('s', 'stream_exists', missing)).toMatchObject({
      expected: 'stream_exists',
      actual: 'no_stream',
    });
    expect(toWrongExpectedRevision('s', 0, { actualState: -1n })).toMatchObject({ actual: 'no_stream' });
  });

  it('addresses an event by its commit position, exclusive checkpoints included', () => {
    expect(toReadPosition(undefined)).toBe('start');
    expect(toReadPosition(0)).toBe('start');
    expect(toReadPosition(1234)).toEqual({ commit: 1234n, prepare: 1234n });
    expect(toLogPosition(1234n)).toBe(1234);
    expect(() => toLogPosition(2n ** 53n)).toThrow(RangeError);
  });

  it('treats $-typed events and events of $-streams as system events', () => {
    expect(isSystemEvent({ type: '$metadata', streamId: 'orders-1' })).toBe(true);
    expect(isSystemEvent({ type: 'Created', streamId: '$stats-127.0.0.1:2113' })).toBe(true);
    expect(isSystemEvent({ type: 'Created', streamId: 'orders-1' })).toBe(false);
  });
});
