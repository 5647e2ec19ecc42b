// A file's opening statements wait out another process that holds the file (as one opening the same new file does),
// up to their timeout; a statement that fails for another reason fails at once. The other process is real: a child
// that takes the file's exclusive lock, says so, and lets it go after a while.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { execOpening } from './opening-statements.js';

/** A process holding `path`'s exclusive lock for `ms` (resolves once it holds it), then committing and ending. */
async function holdLock(path: string, ms: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--no-warnings',
      '-e',
      `const { DatabaseSync } = require('node:sqlite');
       const db = new DatabaseSync(process.env.DB);
       db.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS held (x)');
       process.stdout.write('held');
       setTimeout(() => { db.exec('COMMIT'); db.close(); }, Number(process.env.MS));`,
    ],
    { env: { ...process.env, DB: path, MS: String(ms) }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder ended first (${code})`)));
  });
  return child;
}

const ended = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));

describe('execOpening', () => {
  const dir = mkdtempSync(join(tmpdir(), 'opening-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the statements once the other process lets the file go', async () => {
    const path = join(dir, 'a.db');
    const holder = await holdLock(path, 300);
    const db = new DatabaseSync(path);
    try {
      // No busy timeout of the connection's own: SQLite refuses at once while the lock is held.
      expect(() => db.exec('PRAGMA journal_mode = WAL')).toThrow(/locked/);
      execOpening(db, 'PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS t (x)');
      expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
      expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()).toEqual([
        { name: 'held' },
        { name: 't' },
      ]);
    } finally {
      db.close();
      await ended(holder);
    }
  });

  it('gives up after its timeout with the busy error, and fails at once on any other error', async () => {
    const path = join(dir, 'b.db');
    const holder = await holdLock(path, 1_500);
    const db = new DatabaseSync(path);
    try {
      const started = Date.now();
      expect(() => execOpening(db, 'PRAGMA journal_mode = WAL', 200)).toThrow(/locked/);
      // It gave up (the lock is held for 1.5 s), and not before its timeout.
      expect(Date.now() - started).toBeGreaterThanOrEqual(200);
      expect(() => execOpening(db, 'CREATE TABLE (')).toThrow(/syntax error/);
    } finally {
      db.close();
      await ended(holder);
    }
  });
});
