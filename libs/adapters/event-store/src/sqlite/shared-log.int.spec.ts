// One embedded event log written by two processes at once (an api and its workers share a data directory), as they
// run: the compiled store, with its checkpoint thread (dist/, built by `npm test`'s pretest). Each appends to a stream
// of its own with expected revisions for a few seconds; afterwards every append it was told had committed is in the
// log. (A checkpoint thread that closed its descriptor of the `-shm` file dropped the process's locks on the log: the
// other process wrote it at the same time, and an acknowledged append was gone within seconds.)
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const COMPILED_STORE = new URL(
  '../../../../../dist/libs/adapters/event-store/src/sqlite/sqlite-event-store.js',
  import.meta.url,
);

/** Appends for `ms` and prints what it was acknowledged and what the log holds of its stream. */
const WRITER = `
  const { SqliteEventStore } = await import(process.env.STORE);
  const store = new SqliteEventStore({ path: process.env.LOG });
  const stream = 'writer-' + process.pid;
  const data = { text: 'x'.repeat(3000) };
  const until = Date.now() + Number(process.env.MS);
  let acknowledged = 0;
  let refused = 0;
  while (Date.now() < until) {
    const expected = acknowledged === 0 ? 'no_stream' : acknowledged - 1;
    try {
      await store.appendToStream(stream, [{ id: crypto.randomUUID(), type: 'Written', data, metadata: {} }], expected);
      acknowledged++;
    } catch (error) {
      // A busy log refuses an append now and then; a revision refused means one acknowledged earlier is missing.
      if (error.name === 'WrongExpectedRevisionError') break;
      refused++;
    }
  }
  const stored = (await store.readStream(stream)).length;
  process.stdout.write(JSON.stringify({ acknowledged, stored, refused }));
  process.exit(0);
`;

const writer = (log: string, ms: number) =>
  new Promise<{ acknowledged: number; stored: number; refused: number }>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--no-warnings', '--input-type=module', '-e', WRITER],
      { env: { ...process.env, STORE: COMPILED_STORE.href, LOG: log, MS: String(ms) }, timeout: ms + 30_000 },
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout))),
    ),
  );

describe('one embedded event log written by two processes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shared-log-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every append either process was told had committed', async () => {
    const log = join(dir, 'events.db');
    const results = await Promise.all([writer(log, 8000), writer(log, 8000)]);
    for (const result of results) {
      expect(result.acknowledged).toBeGreaterThan(100);
      expect(result.stored).toBe(result.acknowledged);
    }
  }, 60_000);
});
