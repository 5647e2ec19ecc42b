// The process's WAL checkpoint thread, with the compiled worker (dist/, built by `npm test`'s pretest): it starts only
// once a registered writer had to checkpoint its log itself (or the log grew long), then copies their logs into the database
// files itself (the writers' automatic checkpoint raised to a backstop), and a writer that unregisters closes its file
// after the thread has closed its connection. A worker that fails hands checkpoints back to the writers.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import {
  BACKSTOP_AUTOCHECKPOINT_PAGES,
  DEFAULT_AUTOCHECKPOINT_PAGES,
  WalCheckpoints,
} from './wal-checkpoints.js';
import { walIndexHeader } from './wal-index.js';
import { truncateWal } from './wal-truncate.js';

const COMPILED_WORKER = new URL(
  '../../../../../dist/libs/core/kernel/src/sqlite/wal-checkpoints.worker.js',
  import.meta.url,
);

/** The wal-index header's mxFrame (frames in the log) and the checkpoint info's nBackfill (frames copied back). */
const walIndex = (path: string) => {
  const shm = readFileSync(`${path}-shm`);
  return { frames: shm.readUInt32LE(16), backfilled: shm.readUInt32LE(96) };
};

const until = async (condition: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('WalCheckpoints', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wal-checkpoints-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A writer as the stores open theirs: WAL, its automatic checkpoint set through the registration. */
  const writer = (name: string) => {
    const path = join(dir, name);
    const db = new DatabaseSync(path);
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE t (x TEXT)');
    const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
    const settings: number[] = [];
    const file = {
      path,
      synchronous: 'NORMAL' as const,
      autocheckpoint: (pages: number) => {
        settings.push(pages);
        db.exec(`PRAGMA wal_autocheckpoint = ${pages}`);
      },
    };
    /** Commits `pages` pages of rows, one commit each. */
    const write = (pages: number) => {
      for (let i = 0; i < pages; i++) insert.run('x'.repeat(4000));
    };
    const autocheckpoint = () =>
      (db.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
    return { path, db, file, settings, write, autocheckpoint };
  };

  it('starts once a writer had to checkpoint its log itself, then checkpoints every log in its thread; unregistering closes it first', async () => {
    expect(existsSync(COMPILED_WORKER)).toBe(true);
    const checkpoints = new WalCheckpoints({
      workerUrl: COMPILED_WORKER,
      watchIntervalMs: 20,
      intervalMs: 20,
      checkpointAtFrames: 1,
      startsAtFrames: 100_000,
    });
    const a = writer('a.db');
    const b = writer('b.db');
    const stopA = checkpoints.register(a.file);
    const stopB = checkpoints.register(b.file);
    await new Promise((resolve) => setTimeout(resolve, 100));
    a.write(100);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // 100 pages: no writer has had to checkpoint yet (SQLite's automatic checkpoint comes at 1,000).
    expect(checkpoints.running).toBe(false);
    expect(a.autocheckpoint()).toBe(DEFAULT_AUTOCHECKPOINT_PAGES);
    expect(walIndex(a.path).backfilled).toBe(0);

    // b's writer reaches 1,000 pages, checkpoints itself, and its log restarts: that starts the thread.
    b.write(1100);
    await until(() => checkpoints.running);
    expect(a.settings).toEqual([BACKSTOP_AUTOCHECKPOINT_PAGES]);
    expect(b.autocheckpoint()).toBe(BACKSTOP_AUTOCHECKPOINT_PAGES);
    // The thread copies both logs back without either writer checkpointing.
    await until(() => walIndex(a.path).backfilled === walIndex(a.path).frames && walIndex(a.path).frames > 0);
    await until(() => walIndex(b.path).backfilled === walIndex(b.path).frames && walIndex(b.path).frames > 0);
    a.write(50);
    await until(() => walIndex(a.path).backfilled === walIndex(a.path).frames);
    expect(Number((a.db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n)).toBe(150);

    await stopA();
    a.db.close();
    // The writer's connection was the last: its log is gone with it.
    expect(existsSync(`${a.path}-wal`)).toBe(false);
    b.write(20);
    await until(() => walIndex(b.path).backfilled === walIndex(b.path).frames);
    await stopB();
    b.db.close();
    expect(existsSync(`${b.path}-wal`)).toBe(false);
  });

  it('checkpoints a log only once it holds checkpointAtFrames frames not yet copied back', async () => {
    const checkpoints = new WalCheckpoints({
      workerUrl: COMPILED_WORKER,
      watchIntervalMs: 20,
      intervalMs: 20,
      checkpointAtFrames: 200,
      startsAtFrames: 10,
    });
    const a = writer('a.db');
    const stop = checkpoints.register(a.file);
    await new Promise((resolve) => setTimeout(resolve, 40));
    a.write(20);
    await until(() => checkpoints.running);
    // Started, the thread copies nothing back while the log holds fewer than 200 new frames…
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(walIndex(a.path).backfilled).toBe(0);
    // …and copies it back once it holds them. The thread may look while the 220 commits are under way: it copies the
    // first 200 or so, and the writer's next commit may restart the log (a new salt) behind the copied frames.
    const before = walIndexHeader(a.path);
    a.write(220);
    await until(() => {
      const header = walIndexHeader(a.path);
      return header !== null && (header.backfilled >= 200 || header.salt !== before?.salt);
    });
    await stop();
    a.db.close();
  });

  it('lets a writer that erased a row truncate its log while the thread runs: the row is in no file', async () => {
    const checkpoints = new WalCheckpoints({
      workerUrl: COMPILED_WORKER,
      watchIntervalMs: 20,
      intervalMs: 20,
      checkpointAtFrames: 1,
      startsAtFrames: 10,
    });
    const a = writer('a.db');
    a.db.exec('PRAGMA secure_delete = ON');
    const stop = checkpoints.register(a.file);
    await new Promise((resolve) => setTimeout(resolve, 40));
    a.write(30);
    await until(() => checkpoints.running);
    const secret = `erase-me-${'z'.repeat(64)}`;
    a.db.prepare('INSERT INTO t (x) VALUES (?)').run(secret);
    await until(() => walIndex(a.path).backfilled === walIndex(a.path).frames);
    expect(readFileSync(a.path).includes(secret)).toBe(true);
    // What the stores do after a deletion: delete, then checkpoint and truncate the log from the writer, waiting out
    // the thread's checkpoint if one is under way (SQLite answers busy at once then).
    a.db.prepare('DELETE FROM t WHERE x = ?').run(secret);
    expect(truncateWal(a.db)).toBe(true);
    for (const file of [a.path, `${a.path}-wal`])
      if (existsSync(file)) expect(readFileSync(file).includes(secret)).toBe(false);
    await stop();
    a.db.close();
  });

  it('hands checkpoints back to the writers when its worker fails', async () => {
    const broken = join(dir, 'broken.worker.mjs');
    writeFileSync(broken, "throw new Error('no checkpoints here');\n");
    const checkpoints = new WalCheckpoints({
      workerUrl: new URL(`file://${broken}`),
      watchIntervalMs: 20,
      startsAtFrames: 50,
    });
    const a = writer('a.db');
    const stop = checkpoints.register(a.file);
    await new Promise((resolve) => setTimeout(resolve, 60));
    a.write(80);
    await until(() => a.settings.length === 2);
    expect(a.settings).toEqual([BACKSTOP_AUTOCHECKPOINT_PAGES, DEFAULT_AUTOCHECKPOINT_PAGES]);
    expect(a.autocheckpoint()).toBe(DEFAULT_AUTOCHECKPOINT_PAGES);
    expect(checkpoints.running).toBe(false);
    await stop();
    a.db.close();
  });
});
