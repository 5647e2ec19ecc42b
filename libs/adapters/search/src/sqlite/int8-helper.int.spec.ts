// The int8 scan's helper thread, with the compiled worker (dist/, built by `npm test`'s pretest; run `npm run build`
// first when calling jest directly): a large prepared run, and documents offered one by one, rank exactly as the exact
// scan while the helper passes over some of their runs, and a helper that fails in a segment, never finishes its job,
// or cannot start leaves every scan exact.
import { jest } from '@jest/globals';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ScanHelper, type JobOutcome } from './int8-helper.js';
import { Int8Block, Int8Run, Int8Scan, useScanHelper } from './int8-scan.js';
import { dotAt, packVectors, TopScores, unitVector, unpackVectors } from './packed-vectors.js';

const COMPILED = '../../../../../dist/libs/adapters/search/src/sqlite/';
const COMPILED_WORKER = new URL(`${COMPILED}int8-helper.worker.js`, import.meta.url);
const COMPILED_PROTOCOL = new URL(`${COMPILED}int8-helper.js`, import.meta.url);

const DIMENSIONS = 32;
let seed = 7;
const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 2 - 1;
const vectors = (count: number) =>
  Array.from({ length: count }, () => Array.from({ length: DIMENSIONS }, random));

interface Document {
  readonly floats: Float32Array;
  readonly first: number;
  readonly count: number;
  readonly codes: Int8Block;
}

/** 60 documents of 400 rows (24,000 rows, 6,000 groups: above the size a run is shared at). */
function documents(): Document[] {
  const found: Document[] = [];
  let previous: number[][] = [];
  for (let i = 0; i < 60; i++) {
    const rows = vectors(400);
    // A vector repeated from the document before ties with it: the smaller id must win, as in the exact scan.
    if (i > 0) rows[5] = previous[3]!;
    previous = rows;
    const floats = unpackVectors(packVectors(rows, DIMENSIONS));
    found.push({ floats, first: i * 1000, count: 400, codes: Int8Block.encode(floats, 400, DIMENSIONS)! });
  }
  return found;
}

const exactBest = (
  docs: readonly Document[],
  query: Float32Array,
  capacity: number,
  keep: (id: number) => boolean = () => true,
) => {
  const top = new TopScores(capacity);
  for (const { floats, first, count } of docs)
    for (let i = 0; i < count; i++)
      if (keep(first + i)) top.offer(first + i, dotAt(floats, i * DIMENSIONS, query));
  return top.best();
};

/**
 * Scans (each checked against the exact scan) until the helper has passed over segments of `wanted` scans, or `enough`
 * says so, or the deadline; returns how many scans it helped and how many ran.
 */
async function scanUntilHelped(
  docs: readonly Document[],
  run: Int8Run,
  wanted: number,
  deadlineMs = 20_000,
  enough: () => boolean = () => false,
) {
  let helped = 0;
  let scans = 0;
  const until = Date.now() + deadlineMs;
  while (helped < wanted && !enough() && Date.now() < until) {
    const query = unitVector(vectors(1)[0]!)!;
    const capacity = [1, 10, 50][scans % 3]!;
    const scan = new Int8Scan(query, capacity);
    scan.offerRun(run);
    const top = new TopScores(capacity);
    scan.exact(top);
    expect(top.best()).toEqual(exactBest(docs, query, capacity));
    if (scan.segmentsHelped > 0) helped++;
    scans++;
    // The event loop turns between scans (the helper starts meanwhile).
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return { helped, scans };
}

const compiled = existsSync(fileURLToPath(COMPILED_WORKER));
if (!compiled) console.warn('int8-helper.int.spec: skipped, no compiled worker (run `npm run build` first)');
const describeCompiled = compiled ? describe : describe.skip;

describeCompiled('the int8 scan helper thread', () => {
  let docs: Document[];
  let run: Int8Run;
  let dir: string;

  beforeAll(() => {
    docs = documents();
    run = Int8Run.of(docs.map((doc) => ({ block: doc.codes, floats: doc.floats, first: doc.first })));
    dir = mkdtempSync(join(tmpdir(), 'int8-helper-'));
  });
  const outcomes: JobOutcome[] = [];
  beforeEach(() => {
    outcomes.length = 0;
    const finish = ScanHelper.prototype.finish;
    jest.spyOn(ScanHelper.prototype, 'finish').mockImplementation(function (this: ScanHelper) {
      const outcome = finish.call(this);
      outcomes.push(outcome);
      return outcome;
    });
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => {
    useScanHelper(null);
    for (const doc of docs) doc.codes.release();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A worker of our own that speaks the helper's protocol (its constants from the compiled module). */
  const fakeWorker = (name: string, onJob: string): URL => {
    const path = join(dir, `${name}.worker.mjs`);
    writeFileSync(
      path,
      [
        "import { workerData } from 'node:worker_threads';",
        `import { CONTROL, JOINED, OPEN, status } from '${COMPILED_PROTOCOL.href}';`,
        'const control = new Int32Array(workerData.control);',
        'let seen = Atomics.load(control, CONTROL.job);',
        'Atomics.store(control, CONTROL.ready, 1);',
        'for (;;) {',
        '  Atomics.wait(control, CONTROL.job, seen);',
        '  seen = Atomics.load(control, CONTROL.job);',
        '  if (Atomics.load(control, CONTROL.stop) === 1) break;',
        '  if (Atomics.compareExchange(control, CONTROL.status, status(seen, OPEN), status(seen, JOINED)) !== status(seen, OPEN)) continue;',
        onJob,
        '}',
      ].join('\n'),
    );
    return pathToFileURL(path);
  };

  it('ranks a large prepared run exactly as the exact scan while the helper passes over some of its segments', async () => {
    useScanHelper(COMPILED_WORKER);
    const { helped, scans } = await scanUntilHelped(docs, run, 5);
    expect(helped).toBe(5);
    expect(scans).toBeGreaterThanOrEqual(5);
  });

  it('passes over documents offered one by one beside the helper, their floats read row by row, and alone with a filter', async () => {
    useScanHelper(COMPILED_WORKER);
    let helped = 0;
    const until = Date.now() + 20_000;
    for (let scans = 0; (helped < 3 || scans < 6) && Date.now() < until; scans++) {
      const query = unitVector(vectors(1)[0]!)!;
      // Every other scan keeps one row in three (a tag filter): those runs are passed over here alone.
      const keep = scans % 2 === 1 ? (id: number) => id % 3 === 0 : undefined;
      const scan = new Int8Scan(query, 20);
      for (const doc of docs) {
        const rows = (row: number) => doc.floats.subarray(row * DIMENSIONS, (row + 1) * DIMENSIONS);
        scan.offer(doc.codes, rows, doc.first, keep);
      }
      const top = new TopScores(20);
      scan.exact(top);
      expect(top.best()).toEqual(exactBest(docs, query, 20, keep));
      if (keep) expect(scan.segmentsHelped).toBe(0);
      else if (scan.segmentsHelped > 0) helped++;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(helped).toBe(3);
  });

  it('passes over the segment a helper failed in itself, and uses that helper no more', async () => {
    // Claims a segment, fails in it (CONTROL.current left naming it), and says it is done.
    useScanHelper(
      fakeWorker(
        'failing',
        [
          '  const segment = Atomics.add(control, CONTROL.next, 1);',
          '  if (segment < control[CONTROL.count]) Atomics.store(control, CONTROL.current, segment + 1);',
          '  Atomics.store(control, CONTROL.done, seen);',
          '  Atomics.notify(control, CONTROL.done);',
        ].join('\n'),
      ),
    );
    // Until it joins once, and 20 scans after: every scan exact; none is helped (it hands nothing back).
    const failed = () => outcomes.filter((outcome) => 'failed' in outcome && outcome.failed >= 0).length;
    const before = await scanUntilHelped(docs, run, 1, 10_000, () => failed() > 0);
    expect(before.helped).toBe(0);
    expect(failed()).toBe(1);
    // It joined one job, failed in a segment of it, and is given no other job.
    const jobs = outcomes.length;
    await scanUntilHelped(docs, run, 1, 200);
    expect(outcomes).toHaveLength(jobs);
  });

  it('gives up a helper that joins a job and never finishes it, and the scan stays exact', async () => {
    useScanHelper(
      fakeWorker(
        'stuck',
        [
          '  Atomics.add(control, CONTROL.next, 1);',
          '  const never = new Int32Array(new SharedArrayBuffer(4));',
          '  Atomics.wait(never, 0, 0);',
        ].join('\n'),
      ),
    );
    const started = Date.now();
    const abandoned = () => outcomes.filter((outcome) => 'abandoned' in outcome).length;
    const { helped } = await scanUntilHelped(docs, run, 1, 10_000, () => abandoned() > 0);
    expect(helped).toBe(0);
    expect(abandoned()).toBe(1);
    // That scan waited for it (two seconds) before passing over the segment it had claimed; it is asked no more.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    const jobs = outcomes.length;
    await scanUntilHelped(docs, run, 1, 200);
    expect(outcomes).toHaveLength(jobs);
  }, 15_000);

  it('scans in one thread, exactly, when the helper cannot start', async () => {
    const broken = join(dir, 'broken.worker.mjs');
    writeFileSync(broken, "throw new Error('this helper does not start');\n");
    useScanHelper(pathToFileURL(broken));
    const { helped, scans } = await scanUntilHelped(docs, run, 1, 500);
    expect(helped).toBe(0);
    expect(scans).toBeGreaterThan(10);
    expect(outcomes).toHaveLength(0);
  });
});
