import { dotAt, packVectors, TopScores, unitVector, unpackVectors } from './packed-vectors.js';
import { Int8Block, int8Available, Int8Run, Int8Scan } from './int8-scan.js';

describe('Int8Scan', () => {
  let seed = 23;
  const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 2 - 1;
  const vectors = (count: number, dimensions: number) =>
    Array.from({ length: count }, () => Array.from({ length: dimensions }, random));
  const packed = (rows: number[][], dimensions: number) => unpackVectors(packVectors(rows, dimensions));

  /** The exact scan's answer: every vector scored with dotAt, the best `capacity` by score then id. */
  const exactBest = (
    blocks: readonly { floats: Float32Array; first: number; count: number }[],
    query: Float32Array,
    capacity: number,
    keep?: (id: number) => boolean,
  ) => {
    const top = new TopScores(capacity);
    for (const { floats, first, count } of blocks)
      for (let i = 0; i < count; i++)
        if (!keep || keep(first + i)) top.offer(first + i, dotAt(floats, i * query.length, query));
    return top.best();
  };

  it('finds exactly the best vectors of the exact scan, ties and filters included, for any dimension count', () => {
    for (const dimensions of [384, 8, 7, 100]) {
      expect(int8Available(dimensions)).toBe(true);
      const blocks: { floats: Float32Array; first: number; count: number; codes: Int8Block }[] = [];
      let first = 1;
      for (const count of [1, 37, 300, 5]) {
        const rows = vectors(count, dimensions);
        // Repeated vectors tie: the smaller id must win, as in the exact scan.
        if (count > 10) rows[7] = rows[3]!;
        const floats = packed(rows, dimensions);
        blocks.push({ floats, first, count, codes: Int8Block.encode(floats, count, dimensions)! });
        first += count + 10;
      }
      for (let q = 0; q < 5; q++) {
        const query = unitVector(vectors(1, dimensions)[0]!)!;
        for (const capacity of [1, 10, 50]) {
          for (const keep of [undefined, (id: number) => id % 3 !== 0]) {
            const scan = new Int8Scan(query, capacity);
            for (const block of blocks) scan.offer(block.codes, block.floats, block.first, keep);
            const top = new TopScores(capacity);
            scan.exact(top);
            expect(top.best()).toEqual(exactBest(blocks, query, capacity, keep));
            // The point of the first pass: it leaves far fewer vectors to score exactly.
            if (dimensions === 384 && capacity === 10) expect(scan.rescored).toBeLessThan(200);
          }
        }
      }
      for (const block of blocks) block.codes.release();
    }
  });

  it('stays exact where the module hands back every group (all scores negative) and where it hands back none', () => {
    const dimensions = 64;
    const query = unitVector(vectors(1, dimensions)[0]!)!;
    const opposite = (count: number) =>
      Array.from({ length: count }, () => Array.from(query, (value) => -value + random() * 0.2));
    const zero = Array.from({ length: 9 }, () => new Array<number>(dimensions).fill(0));
    const blocks = [opposite(37), vectors(300, dimensions), opposite(40), zero].map((rows, n) => {
      const floats = packed(rows, dimensions);
      return {
        floats,
        first: 1000 * n,
        count: rows.length,
        codes: Int8Block.encode(floats, rows.length, dimensions)!,
      };
    });
    for (const [order, capacity] of [
      [[0], 5],
      [[0, 2, 3], 80],
      [[1, 0, 2, 3], 5],
      [[1, 3], 400],
    ] as const) {
      const offered = order.map((n) => blocks[n]!);
      const scan = new Int8Scan(query, capacity);
      for (const block of offered) scan.offer(block.codes, block.floats, block.first);
      const top = new TopScores(capacity);
      scan.exact(top);
      expect(top.best()).toEqual(exactBest(offered, query, capacity));
    }
    for (const block of blocks) block.codes.release();
  });

  it("hands back only the groups where a row's own bound reaches the threshold, whatever its neighbours' scales", () => {
    const dimensions = 384;
    const query = unitVector(vectors(1, dimensions)[0]!)!;
    // 40 blocks of 100 rows; every fourth row has one large component where the query's is the most negative: it
    // scores below 0, with a scale several times its group's other rows'.
    const lowest = query.indexOf(Math.min(...query));
    const blocks = Array.from({ length: 40 }, (_, n) => {
      const rows = vectors(100, dimensions).map((row, i) =>
        i % 4 === 0 ? row.map((value, d) => (d === lowest ? 40 : value)) : row,
      );
      const floats = packed(rows, dimensions);
      return { floats, first: 100 * n, count: 100, codes: Int8Block.encode(floats, 100, dimensions)! };
    });
    const scan = new Int8Scan(query, 10);
    for (const block of blocks) scan.offer(block.codes, block.floats, block.first);
    const top = new TopScores(10);
    scan.exact(top);
    expect(top.best()).toEqual(exactBest(blocks, query, 10));
    // The first block's 25 groups all come back (nothing to compare with yet), then a few of the others' 975 (each
    // call of about ten blocks compares with the threshold it starts with; with the group's largest scale for all
    // four rows, more than half came back).
    expect(scan.groupsHandedBack).toBeLessThan(200);
    for (const block of blocks) block.codes.release();
  });

  it('scores exactly only the survivors the top can still admit, best bound first', () => {
    const dimensions = 384;
    const query = unitVector(vectors(1, dimensions)[0]!)!;
    // The query itself, among vectors scoring about 0: its bound is far above every other one.
    const rows = vectors(200, dimensions);
    rows[150] = Array.from(query);
    const floats = packed(rows, dimensions);
    const codes = Int8Block.encode(floats, rows.length, dimensions)!;
    const scan = new Int8Scan(query, 1);
    scan.offer(codes, floats, 0);
    const top = new TopScores(1);
    scan.exact(top);
    expect(top.best()).toEqual([150]);
    expect(scan.rescored).toBe(1);
    codes.release();
  });

  it('reads through a row reader only the vectors it scores exactly, and ranks as the exact scan', () => {
    const dimensions = 64;
    const blocks = Array.from({ length: 6 }, (_, n) => {
      const floats = packed(vectors(150, dimensions), dimensions);
      return { floats, first: 1000 * n, count: 150, codes: Int8Block.encode(floats, 150, dimensions)! };
    });
    const query = unitVector(vectors(1, dimensions)[0]!)!;
    const read: number[] = [];
    const scan = new Int8Scan(query, 10);
    for (const block of blocks)
      scan.offer(
        block.codes,
        (row) => {
          read.push(block.first + row);
          return block.floats.subarray(row * dimensions, (row + 1) * dimensions);
        },
        block.first,
      );
    const top = new TopScores(10);
    scan.exact(top);
    expect(top.best()).toEqual(exactBest(blocks, query, 10));
    expect(read).toHaveLength(scan.rescored);
    expect(new Set(read).size).toBe(read.length);
    expect(read.length).toBeLessThan(900);
    for (const block of blocks) block.codes.release();
  });

  it('encodes a block from pieces in any order exactly as from its vectors whole', () => {
    const dimensions = 48;
    const floats = packed(vectors(70, dimensions), dimensions);
    const whole = Int8Block.encode(floats, 70, dimensions)!;
    const piece = (row: number, rows: number) => ({
      row,
      floats: floats.slice(row * dimensions, (row + rows) * dimensions),
    });
    const pieces = Int8Block.encodePieces([piece(48, 22), piece(16, 32), piece(0, 16)], 70, dimensions)!;
    expect([...pieces.scales]).toEqual([...whole.scales]);
    expect(pieces.maxScale).toBe(whole.maxScale);
    const query = unitVector(vectors(1, dimensions)[0]!)!;
    const best = (block: Int8Block) => {
      const scan = new Int8Scan(query, 5);
      scan.offer(block, floats, 0);
      const top = new TopScores(5);
      scan.exact(top);
      return [top.best(), scan.rescored, scan.groupsHandedBack];
    };
    expect(best(pieces)).toEqual(best(whole));
    whole.release();
    pieces.release();
  });

  it('scores the zero vector 0, like the exact scan, and ranks it by id among equal scores', () => {
    const dimensions = 16;
    const rows = [new Array<number>(dimensions).fill(0), ...vectors(3, dimensions)];
    const floats = packed(rows, dimensions);
    const codes = Int8Block.encode(floats, rows.length, dimensions)!;
    const query = unitVector(vectors(1, dimensions)[0]!)!;
    const scan = new Int8Scan(query, 4);
    scan.offer(codes, floats, 100);
    const top = new TopScores(4);
    scan.exact(top);
    expect(top.best()).toEqual(exactBest([{ floats, first: 100, count: rows.length }], query, 4));
    codes.release();
  });

  it('reuses the memory of released blocks, merged with their free neighbours', () => {
    const dimensions = 32;
    const floats = packed(vectors(64, dimensions), dimensions);
    const a = Int8Block.encode(floats, 64, dimensions)!;
    const b = Int8Block.encode(floats, 64, dimensions)!;
    const c = Int8Block.encode(floats, 64, dimensions)!;
    a.release();
    b.release();
    // a and b merged: a block of both their sizes fits where a was.
    const both = Int8Block.encode(packed(vectors(128, dimensions), dimensions), 128, dimensions)!;
    expect(both.at).toBe(a.at);
    // Releasing twice gives nothing back twice.
    both.release();
    both.release();
    c.release();
    const again = Int8Block.encode(floats, 64, dimensions)!;
    expect(again.at).toBe(a.at);
    again.release();
  });

  it('passes over blocks side by side in one call, across the batch limit, in any order and with gaps', () => {
    const dimensions = 48;
    const blocks: { floats: Float32Array; first: number; count: number; codes: Int8Block }[] = [];
    // 60 documents of 1 to 150 rows (5,000 rows and more: runs longer than one call's 4,096), then one of 5,000.
    for (const count of [...Array.from({ length: 60 }, (_, i) => 1 + ((i * 37) % 150)), 5_000]) {
      const floats = packed(vectors(count, dimensions), dimensions);
      const first = blocks.length === 0 ? 0 : blocks.at(-1)!.first + blocks.at(-1)!.count + 3;
      blocks.push({ floats, first, count, codes: Int8Block.encode(floats, count, dimensions)! });
    }
    const query = unitVector(vectors(1, dimensions)[0]!)!;
    const orders = [blocks, [...blocks].reverse(), blocks.filter((_, i) => i % 3 !== 1)];
    for (const offered of orders) {
      const scan = new Int8Scan(query, 20);
      for (const block of offered) scan.offer(block.codes, block.floats, block.first);
      const top = new TopScores(20);
      scan.exact(top);
      expect(top.best()).toEqual(exactBest(offered, query, 20));
    }
    for (const block of blocks) block.codes.release();
  });

  it('ranks a prepared run of blocks as their offers one by one, search after search', () => {
    const dimensions = 40;
    const blocks: { floats: Float32Array; first: number; count: number; codes: Int8Block }[] = [];
    // Documents of 1 to 90 rows (runs cut at the call's group limit), one past the batch limit, then small ones again.
    for (const count of [...Array.from({ length: 80 }, (_, i) => 1 + ((i * 53) % 90)), 4_500, 3, 17]) {
      const floats = packed(vectors(count, dimensions), dimensions);
      const first = blocks.length === 0 ? 0 : blocks.at(-1)!.first + blocks.at(-1)!.count + 5;
      blocks.push({ floats, first, count, codes: Int8Block.encode(floats, count, dimensions)! });
    }
    // Every fourth document left out: its neighbours are not end to end, and a run ends there.
    const offered = blocks.filter((_, i) => i % 4 !== 2);
    const run = Int8Run.of(
      offered.map((block) => ({ block: block.codes, floats: block.floats, first: block.first })),
    );
    expect(run.blocks).toBe(offered.length);
    expect(run.segments.length).toBeGreaterThan(1);
    for (let q = 0; q < 6; q++) {
      const query = unitVector(vectors(1, dimensions)[0]!)!;
      for (const capacity of [1, 8, 30]) {
        const prepared = new Int8Scan(query, capacity);
        prepared.offerRun(run);
        const best = new TopScores(capacity);
        prepared.exact(best);
        const oneByOne = new Int8Scan(query, capacity);
        for (const block of offered) oneByOne.offer(block.codes, block.floats, block.first);
        const expected = new TopScores(capacity);
        oneByOne.exact(expected);
        expect(best.best()).toEqual(expected.best());
        expect(best.best()).toEqual(exactBest(offered, query, capacity));
      }
    }
    for (const block of blocks) block.codes.release();
  });

  it('reads the codes of an offered block before its memory is released and handed out again', () => {
    const dimensions = 32;
    const query = unitVector(vectors(1, dimensions)[0]!)!;
    const blocks = [0, 1, 2].map((n) => {
      const floats = packed(vectors(40, dimensions), dimensions);
      return { floats, first: n * 100, count: 40, codes: Int8Block.encode(floats, 40, dimensions)! };
    });
    const scan = new Int8Scan(query, 5);
    for (const block of blocks) scan.offer(block.codes, block.floats, block.first);
    // The cache gives the middle block up during the search, and the next document's codes take its place.
    blocks[1]!.codes.release();
    const opposite = Array.from({ length: 40 }, () => Array.from(query, (value) => -value));
    const taker = Int8Block.encode(packed(opposite, dimensions), 40, dimensions)!;
    expect(taker.at).toBe(blocks[1]!.codes.at);
    const top = new TopScores(5);
    scan.exact(top);
    expect(top.best()).toEqual(exactBest(blocks, query, 5));
    taker.release();
    for (const block of blocks) block.codes.release();
  });
});
