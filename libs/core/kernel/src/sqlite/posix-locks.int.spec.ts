// SQLite's locks between processes are POSIX locks, and closing any descriptor of a file drops every one this process
// holds on it (howtocorrupt.html §2.2). What the platform itself opens beside its connections (a `-shm` header read,
// a second connection made private) must leave a writer's lock in place: another process that could take the log's
// write lock meanwhile writes it at the same time, and one of the two commits is lost.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { openPrivateDatabase } from '../private-files.js';
import { walIndexHeader } from './wal-index.js';

/** Whether another process can begin a write transaction on the file now (without waiting). */
const otherProcessCanWrite = (path: string): boolean =>
  execFileSync(
    process.execPath,
    [
      '--no-warnings',
      '-e',
      `const { DatabaseSync } = require('node:sqlite');
       const db = new DatabaseSync(${JSON.stringify(path)});
       db.exec('PRAGMA busy_timeout = 0');
       try { db.exec('BEGIN IMMEDIATE'); db.exec('ROLLBACK'); process.stdout.write('yes'); }
       catch (error) { process.stdout.write(String(error.message)); }`,
    ],
    { encoding: 'utf8' },
  ) === 'yes';

describe("the platform's own file access beside SQLite's connections", () => {
  let dir: string;
  let path: string;
  let writer: DatabaseSync;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'posix-locks-'));
    path = join(dir, 'log.db');
    writer = openPrivateDatabase(path);
    writer.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER)');
    writer.exec('INSERT INTO t VALUES (0)');
  });
  afterEach(() => {
    if (writer.isOpen) writer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps a writer's lock on the log while its wal-index header is read", () => {
    writer.exec('BEGIN IMMEDIATE');
    writer.exec('INSERT INTO t VALUES (1)');
    expect(otherProcessCanWrite(path)).toBe(false);

    const header = walIndexHeader(path);
    expect(walIndexHeader(path)).toEqual(header);
    expect(header!.frames).toBeGreaterThan(0);
    expect(otherProcessCanWrite(path)).toBe(false);

    writer.exec('COMMIT');
    expect(otherProcessCanWrite(path)).toBe(true);
  });

  it("keeps a writer's lock on its file when another connection to it is opened", () => {
    // Outside WAL mode a writer's locks are on the database file itself.
    const plain = openPrivateDatabase(join(dir, 'plain.db'));
    plain.exec('CREATE TABLE t (x INTEGER)');
    plain.exec('BEGIN IMMEDIATE');
    plain.exec('INSERT INTO t VALUES (1)');
    const reader = openPrivateDatabase(join(dir, 'plain.db'));
    expect(reader.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 0 });
    expect(otherProcessCanWrite(join(dir, 'plain.db'))).toBe(false);
    plain.exec('COMMIT');
    expect(otherProcessCanWrite(join(dir, 'plain.db'))).toBe(true);
    reader.close();
    plain.close();
  });

  it('reads the header of a log made again after its file was removed', () => {
    expect(walIndexHeader(join(dir, 'no-such.db'))).toBeNull();
    writer.exec('INSERT INTO t VALUES (2)');
    const before = walIndexHeader(path)!;
    // The last connection's close removes the `-shm` file; the next one makes a new one.
    writer.close();
    writer = openPrivateDatabase(path);
    writer.exec('INSERT INTO t VALUES (3)');
    const after = walIndexHeader(path)!;
    expect(after.frames).toBeGreaterThan(0);
    expect(after.salt).not.toBe(before.salt);
  });
});
