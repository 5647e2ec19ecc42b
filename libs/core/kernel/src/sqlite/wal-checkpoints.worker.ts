// The thread WalCheckpoints starts: one connection per registered file, a PASSIVE checkpoint of each every
// `intervalMs` (it copies what no reader still needs and never waits; a log with nothing new costs a look at its
// wal-index). `close` checkpoints that file once more and closes its connection before the writer closes its own.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

const { intervalMs } = workerData as { intervalMs: number };
const files = new Map<number, { db: DatabaseSync; checkpoint: StatementSync }>();

const checkpoint = (file: { checkpoint: StatementSync }) => {
  try {
    file.checkpoint.get();
  } catch {
    // A busy or closing file: the next round tries again (the writer's backstop bounds its log meanwhile).
  }
};

setInterval(() => {
  for (const file of files.values()) checkpoint(file);
}, intervalMs);

type Message = { open: number; path: string; synchronous: 'NORMAL' | 'FULL' } | { close: number };

parentPort?.on('message', (message: Message) => {
  if ('open' in message) {
    try {
      const db = new DatabaseSync(message.path);
      db.exec(`PRAGMA synchronous = ${message.synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
      files.set(message.open, { db, checkpoint: db.prepare('PRAGMA wal_checkpoint(PASSIVE)') });
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
