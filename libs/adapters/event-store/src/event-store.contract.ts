// One contract for every EventStore adapter: run against SQLite always, against KurrentDB when KURRENTDB_URL is set.
import { IdempotencyMismatchError, WrongExpectedRevisionError, type EventEnvelope } from '#kernel';
import { makeEvent, uniqueStream, waitUntil } from '#testing/fixtures';
import type { EventStore } from './event-store.port.js';

export function eventStoreContract(adapter: string, open: () => Promise<EventStore>): void {
  describe(`EventStore contract: ${adapter}`, () => {
    let store: EventStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store.close();
    });

    it('appends a batch to a new stream and reads it back in order with envelopes', async () => {
      const stream = uniqueStream();
      const events = [makeEvent('ThingCreated', { n: 1 }), makeEvent('ThingRenamed', { name: 'b' })];
      const result = await store.appendToStream(stream, events, 'no_stream');
      expect(result.nextRevision).toBe(1);
      expect(result.positions).toHaveLength(2);
      expect(result.positions[1]!).toBeGreaterThan(result.positions[0]!);

      const read = await store.readStream(stream);
      expect(read.map((e) => [e.type, e.revision, e.streamId, e.id])).toEqual([
        ['ThingCreated', 0, stream, events[0]!.id],
        ['ThingRenamed', 1, stream, events[1]!.id],
      ]);
      expect(read[1]!.data).toEqual({ name: 'b' });
      expect(read[0]!.metadata).toEqual(events[0]!.metadata);
      expect(read.map((e) => e.position)).toEqual(result.positions);
      expect(await store.streamRevision(stream)).toBe(1);
    });

    it('enforces every expected state with a typed conflict', async () => {
      const stream = uniqueStream();
      await expect(store.appendToStream(stream, [makeEvent('A')], 'stream_exists')).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await expect(store.appendToStream(stream, [makeEvent('A')], 3)).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await store.appendToStream(stream, [makeEvent('A')], 'no_stream');
      await expect(store.appendToStream(stream, [makeEvent('B')], 'no_stream')).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await expect(store.appendToStream(stream, [makeEvent('B')], 1)).rejects.toMatchObject({
        code: 'wrong_expected_revision',
        kind: 'conflict',
      });
      await store.appendToStream(stream, [makeEvent('B')], 0);
      await store.appendToStream(stream, [makeEvent('C')], 'stream_exists');
      await store.appendToStream(stream, [makeEvent('D')], 'any');
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B', 'C', 'D']);
    });

    it('appends a batch atomically: a conflicting batch stores none of its events', async () => {
      const stream = uniqueStream();
      await store.appendToStream(stream, [makeEvent('A')], 'no_stream');
      await expect(store.appendToStream(stream, [makeEvent('B'), makeEvent('C')], 5)).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      expect(await store.readStream(stream)).toHaveLength(1);
    });

    it('lets exactly one of two racing writers with the same expected revision win', async () => {
      const stream = uniqueStream();
      await store.appendToStream(stream, [makeEvent('A')], 'no_stream');
      const results = await Promise.allSettled([
        store.appendToStream(stream, [makeEvent('B1')], 0),
        store.appendToStream(stream, [makeEvent('B2')], 0),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('treats a re-sent batch as a durable no-op that returns the original positions', async () => {
      const stream = uniqueStream();
      const batch = [makeEvent('A'), makeEvent('B')];
      const first = await store.appendToStream(stream, batch, 'no_stream');
      await store.appendToStream(stream, [makeEvent('C')], 1);
      // The retry carries the expected revision of the first attempt, now stale: still a no-op, not a conflict.
      const again = await store.appendToStream(stream, batch, 'no_stream');
      expect(again.positions).toEqual(first.positions);
      expect(again.nextRevision).toBe(1);
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B', 'C']);
    });

    it('rejects a batch that reuses some stored ids with other events', async () => {
      const stream = uniqueStream();
      const a = makeEvent('A');
      await store.appendToStream(stream, [a], 'no_stream');
      await expect(store.appendToStream(stream, [a, makeEvent('B')], 'any')).rejects.toBeInstanceOf(
        IdempotencyMismatchError,
      );
      expect(await store.readStream(stream)).toHaveLength(1);
    });

    it('reads a stream backwards and from a revision, and an unknown stream as empty', async () => {
      const stream = uniqueStream();
      await store.appendToStream(
        stream,
        ['A', 'B', 'C', 'D'].map((t) => makeEvent(t)),
        'no_stream',
      );
      expect((await store.readStream(stream, { direction: 'backwards' })).map((e) => e.type)).toEqual([
        'D',
        'C',
        'B',
        'A',
      ]);
      expect(
        (await store.readStream(stream, { direction: 'backwards', fromRevision: 2, maxCount: 2 })).map(
          (e) => e.type,
        ),
      ).toEqual(['C', 'B']);
      expect((await store.readStream(stream, { fromRevision: 1, maxCount: 2 })).map((e) => e.type)).toEqual([
        'B',
        'C',
      ]);
      expect(await store.readStream(uniqueStream('missing'))).toEqual([]);
      expect(await store.streamRevision(uniqueStream('missing'))).toBeNull();
    });

    it('reads a stream from an event id on, at most maxCount, and nothing for an id it does not hold', async () => {
      const stream = uniqueStream();
      const events = ['A', 'B', 'C', 'D', 'E'].map((t) => makeEvent(t));
      await store.appendToStream(stream, events, 'no_stream');
      const other = uniqueStream();
      const elsewhere = makeEvent('X');
      await store.appendToStream(other, [elsewhere], 'no_stream');

      const types = (read: Promise<EventEnvelope[]>) => read.then((found) => found.map((e) => e.type));
      expect(await types(store.readStreamFromEvent(stream, events[1]!.id, 10))).toEqual(['B', 'C', 'D', 'E']);
      expect(await types(store.readStreamFromEvent(stream, events[1]!.id, 2))).toEqual(['B', 'C']);
      expect(await types(store.readStreamFromEvent(stream, events[4]!.id, 2))).toEqual(['E']);
      const [found] = await store.readStreamFromEvent(stream, events[0]!.id, 1);
      expect(found).toMatchObject({ id: events[0]!.id, streamId: stream, revision: 0 });
      expect(await store.readStreamFromEvent(stream, elsewhere.id, 10)).toEqual([]);
      expect(await store.readStreamFromEvent(stream, makeEvent('Z').id, 10)).toEqual([]);
      expect(await store.readStreamFromEvent(uniqueStream('missing'), events[0]!.id, 10)).toEqual([]);
    });

    it('reads the global log in order after a position', async () => {
      const head = await store.headPosition();
      const s1 = uniqueStream();
      const s2 = uniqueStream();
      await store.appendToStream(s1, [makeEvent('X1')], 'no_stream');
      await store.appendToStream(s2, [makeEvent('Y1')], 'no_stream');
      await store.appendToStream(s1, [makeEvent('X2')], 0);
      const mine = (await store.readAll({ after: head })).filter(
        (e) => e.streamId === s1 || e.streamId === s2,
      );
      expect(mine.map((e) => e.type)).toEqual(['X1', 'Y1', 'X2']);
      const positions = mine.map((e) => e.position);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      expect(await store.headPosition()).toBeGreaterThanOrEqual(positions[2]!);
      const paged = await store.readAll({ after: positions[0], maxCount: 1 });
      expect(paged).toHaveLength(1);
      expect(paged[0]!.position).toBeGreaterThan(positions[0]!);
    });

    it("reads the global log's headers as readAll reads its events, without their data", async () => {
      const head = await store.headPosition();
      const stream = uniqueStream();
      await store.appendToStream(
        stream,
        [makeEvent('H1', { text: 'x'.repeat(10_000) }), makeEvent('H2'), makeEvent('H3')],
        'no_stream',
      );
      const events = await store.readAll({ after: head });
      const headers = await store.readAllHeaders({ after: head });
      expect(headers).toEqual(events.map((event) => ({ position: event.position, type: event.type })));
      expect(headers.filter((header) => ['H1', 'H2', 'H3'].includes(header.type))).toHaveLength(3);
      expect(headers.every((header) => Object.keys(header).length === 2)).toBe(true);
      const paged = await store.readAllHeaders({ after: headers[0]!.position, maxCount: 1 });
      expect(paged).toEqual([headers[1]]);
    });

    it('subscribes from a checkpoint, catches up, then turns live without gaps or duplicates', async () => {
      const stream = uniqueStream();
      await store.appendToStream(stream, [makeEvent('E0'), makeEvent('E1')], 'no_stream');
      const [first] = await store.readStream(stream);
      const seen: EventEnvelope[] = [];
      let caughtUp = false;
      const subscription = store.subscribeToAll({
        after: first!.position,
        batchSize: 2,
        onEvents: async (events) => {
          seen.push(...events.filter((e) => e.streamId === stream));
        },
        onCaughtUp: () => {
          caughtUp = true;
        },
      });
      try {
        await waitUntil(() => caughtUp, 10000);
        for (let i = 2; i < 12; i++) await store.appendToStream(stream, [makeEvent(`E${i}`)], i - 1);
        await waitUntil(() => seen.length >= 11, 10000);
        expect(seen.map((e) => e.type)).toEqual(Array.from({ length: 11 }, (_, i) => `E${i + 1}`));
      } finally {
        await subscription.stop();
      }
    });

    it('gives a subscription that reads some event types every one of them, and passes the others in order', async () => {
      const stream = uniqueStream();
      await store.appendToStream(stream, [makeEvent('Read0')], 'no_stream');
      const [first] = await store.readStream(stream);
      // What the subscriber has read up to: each batch's last position, or the position passed to.
      const reached: number[] = [];
      const read: string[] = [];
      let caughtUp = false;
      const subscription = store.subscribeToAll({
        after: first!.position,
        eventTypes: new Set(['Read1', 'Read2']),
        onEvents: async (events) => {
          read.push(...events.filter((e) => e.streamId === stream).map((e) => e.type));
          reached.push(events[events.length - 1]!.position);
        },
        onPassed: (position) => reached.push(position),
        onCaughtUp: () => {
          caughtUp = true;
        },
      });
      try {
        await waitUntil(() => caughtUp, 10000);
        const types = ['Other1', 'Read1', 'Other2', 'Other3', 'Read2', 'Other4'];
        let last = 0;
        for (const [i, type] of types.entries())
          last = (await store.appendToStream(stream, [makeEvent(type)], i)).position;
        await waitUntil(() => reached.at(-1) === last, 10000);
        // Events of other types may come in batches (the subscriber skips them) or be passed over; never out of order.
        expect(read.filter((type) => type.startsWith('Read'))).toEqual(['Read1', 'Read2']);
        expect([...reached].sort((a, b) => a - b)).toEqual(reached);
        expect(new Set(reached).size).toBe(reached.length);
      } finally {
        await subscription.stop();
      }
    });
  });
}
