// The thread WalCheckpoints starts: one connection per registered file. Every `intervalMs` it reads each log's
// wal-index header and runs a PASSIVE checkpoint (it copies what no reader still needs and never waits) of a log that
// holds `checkpointAtFrames` frames not yet copied back: SQLite's own cadence, off the writer's thread. Checkpointing
// every log on every round instead synced the database files every 200 ms, beside the writers' own syncs of their
// commits. `close` checkpoints that file once more and closes its connection before the writer closes its own.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { walIndexHeader } from './wal-index.js';

const { intervalMs, checkpointAtFrames } = workerData as { intervalMs: number; checkpointAtFrames: number };
const files = new Map<number, { path: string; db: DatabaseSync; checkpoint: StatementSync }>();

const checkpoint = (file: { checkpoint: StatementSync }) => {
  try {
    file.checkpoint.get();
  } catch {
    // A busy or closing file: the next round tries again (the writer's backstop bounds its log meanwhile).
  }
};

setInterval(() => {
  for (const file of files.values()) {
    const header = walIndexHeader(file.path);
    if (header && header.frames - header.backfilled >= checkpointAtFrames) checkpoint(file);
  }
}, intervalMs);

type Message = { open: number; path: string; synchronous: 'NORMAL' | 'FULL' } | { close: number };

parentPort?.on('message', (message: Message) => {
  if ('open' in message) {
    try {
      const db = new DatabaseSync(message.path);
      db.exec(`PRAGMA synchronous = ${message.synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
      files.set(message.open, {
        path: message.path,
        db,
        checkpoint: db.prepare('PRAGMA wal_checkpoint(PASSIVE)'),
      });
    } catch {
      // Not opened: the writer's backstop checkpoints it.
    }
    return;
  }
  const file = files.get(message.close);
  files.delete(message.close);
  if (file) {
    checkpoint(file);
    file.db.close();
  }
  parentPort?.postMessage({ closed: message.close });
});
